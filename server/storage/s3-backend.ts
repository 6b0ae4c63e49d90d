// Object bytes in any S3-compatible service (STORAGE_BACKEND=s3): AWS S3,
// MinIO, R2, Ceph... Keys are byte versions under a prefix, as on local disk.
// Writes go through multipart upload for large bodies, so nothing is held
// whole in memory; a refused or cancelled write completes no object.
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable } from 'node:stream';
import { BYTE_KEY, Meter, type Backend, type Written } from './backend.ts';

export type S3Settings = {
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
  /** Folder inside the bucket, so one bucket can hold several projects. */
  prefix: string;
};

/** One client configuration for the object bytes and for @tus/s3-store. */
export function s3ClientConfig(s: S3Settings): S3ClientConfig {
  return {
    region: s.region,
    forcePathStyle: s.forcePathStyle,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    ...(s.accessKeyId && s.secretAccessKey ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } } : {}),
    // Checksums only where S3 requires them: many S3-compatible services do
    // not understand the SDK's default aws-chunked trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

export function s3Client(s: S3Settings): S3Client {
  return new S3Client(s3ClientConfig(s));
}

const PART_SIZE = 8 * 1024 * 1024;

export class S3Backend implements Backend {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  constructor(client: S3Client, bucket: string, prefix: string) {
    this.client = client;
    this.bucket = bucket;
    this.prefix = prefix;
  }

  /** Fails fast at boot when the bucket cannot be reached, naming it. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      throw new Error(`STORAGE_S3_BUCKET ${this.bucket} is not reachable: ${(err as Error).name} ${(err as Error).message ?? ''}`.trim());
    }
  }

  private objectKey(key: string): string {
    if (!BYTE_KEY.test(key)) throw new Error(`not a byte key: ${key}`);
    return `${this.prefix}${key.slice(0, 2)}/${key}`;
  }

  async write(key: string, body: Readable, maxBytes: number): Promise<Written> {
    const meter = new Meter(maxBytes);
    // The generator ends the body early (and the upload with it) past the limit
    // or when the client goes away; the upload then completes nothing.
    const metered = Readable.from(
      (async function* () {
        for await (const chunk of body) {
          meter.count(chunk as Buffer);
          yield chunk as Buffer;
        }
      })(),
      { objectMode: false },
    );
    let failure: unknown;
    metered.on('error', (err) => (failure ??= err));
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: this.objectKey(key), Body: metered }, partSize: PART_SIZE, queueSize: 4, leavePartsOnError: false });
    try {
      await upload.done();
    } catch (err) {
      throw failure ?? err;
    }
    return { size: meter.size, etag: meter.etag() };
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const out = new PassThrough();
    const abort = new AbortController();
    out.on('close', () => abort.abort());
    this.client
      .send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }), { abortSignal: abort.signal })
      .then((res) => {
        const source = res.Body as Readable;
        source.on('error', (err) => out.destroy(err));
        out.on('close', () => source.destroy());
        source.pipe(out);
      })
      .catch((err: Error) => out.destroy(err));
    return out;
  }

  async describe(key: string): Promise<Written> {
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    return { size: Number(head.ContentLength ?? 0), etag: head.ETag ?? `"${key}"` };
  }

  async copy(from: string, to: string): Promise<void> {
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.objectKey(to), CopySource: `${this.bucket}/${this.objectKey(from)}` }));
  }

  async remove(keys: string[]): Promise<void> {
    const valid = keys.filter((k) => BYTE_KEY.test(k));
    for (let i = 0; i < valid.length; i += 1000) {
      const batch = valid.slice(i, i + 1000);
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((k) => ({ Key: this.objectKey(k) })), Quiet: true } }));
    }
  }

  async *list(): AsyncIterable<{ key: string; modified: Date }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ...(token ? { ContinuationToken: token } : {}) }));
      for (const item of page.Contents ?? []) {
        const key = (item.Key ?? '').split('/').pop() ?? '';
        if (BYTE_KEY.test(key)) yield { key, modified: item.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
