// A local S3-compatible server for tests: s3rver (npm) on 127.0.0.1, plus the
// two multipart calls it lacks and @tus/s3-store needs to resume and cancel an
// upload (ListParts, AbortMultipartUpload), answered from s3rver's own files.
// The platform talks to it through the same S3 client it uses in production.
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export type TestS3 = {
  /** Environment that points the platform at this server. */
  env: Record<string, string>;
  client: S3Client;
  bucket: string;
  /** Keys stored in the bucket under a prefix. */
  keys: (prefix?: string) => Promise<string[]>;
  stop: () => Promise<void>;
};

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3(bucket = 'pgbase-test'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'pgbase-s3-'));
  const s3rver = new S3rver({ directory, silent: true });
  const store = (s3rver as unknown as { store: { getResourcePath: (bucket: string, key: string | undefined, resource: string) => string } }).store;
  const handle = s3rver.callback();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3');
    const uploadId = url.searchParams.get('uploadId');
    const [, b, ...rest] = url.pathname.split('/');
    if (uploadId && b && rest.length > 0 && (req.method === 'GET' || req.method === 'DELETE')) {
      const dir = path.join(store.getResourcePath(b, undefined, 'uploads'), uploadId);
      void multipartCall(req.method, dir, b, decodeURIComponent(rest.join('/')), uploadId).then(({ status, body }) => {
        res.writeHead(status, body ? { 'content-type': 'application/xml' } : {});
        res.end(body);
      });
      return;
    }
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    env: {
      STORAGE_BACKEND: 's3', STORAGE_S3_ENDPOINT: endpoint, STORAGE_S3_BUCKET: bucket, STORAGE_S3_REGION: 'us-east-1',
      STORAGE_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, STORAGE_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    client,
    bucket,
    keys: async (prefix = '') => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
        out.push(...(page.Contents ?? []).map((c) => c.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },
    stop: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** ListParts (GET) and AbortMultipartUpload (DELETE) on s3rver's upload folder: parts are files named by number, with .md5 beside. */
async function multipartCall(method: string, dir: string, bucket: string, key: string, uploadId: string): Promise<{ status: number; body?: string }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { status: 404, body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${uploadId}</UploadId></Error>` };
  }
  if (method === 'DELETE') {
    await rm(dir, { recursive: true, force: true });
    return { status: 204 };
  }
  const numbers = names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
  const parts = await Promise.all(numbers.map(async (n) => {
    const [info, md5] = await Promise.all([stat(path.join(dir, String(n))), readFile(path.join(dir, `${n}.md5`), 'utf8').catch(() => '')]);
    return `<Part><PartNumber>${n}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified><ETag>"${md5}"</ETag><Size>${info.size}</Size></Part>`;
  }));
  const escaped = key.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return {
    status: 200,
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Key>${escaped}</Key><UploadId>${uploadId}</UploadId>` +
      `<PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>${numbers.at(-1) ?? 0}</NextPartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`,
  };
}
