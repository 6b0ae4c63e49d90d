// Where object bytes live. Keys are byte versions (random UUIDs) minted by the
// server, never object names, so no name a client sends becomes a file path.
// A write goes to a temporary file first and takes its final key only when it
// is complete, so a cancelled upload leaves no bytes behind.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../errors.ts';

export type Written = { size: number; etag: string };

export interface Backend {
  /** Streams bytes under key; refuses (and keeps nothing) past maxBytes. */
  write(key: string, body: Readable, maxBytes: number): Promise<Written>;
  /** Bytes of key, all or the inclusive range. */
  read(key: string, range?: { start: number; end: number }): Readable;
  copy(from: string, to: string): Promise<void>;
  remove(keys: string[]): Promise<void>;
}

export function newVersion(): string {
  return randomUUID();
}

/** Counts and hashes bytes as they pass, and stops the stream past the limit. */
export class Meter extends Transform {
  size = 0;
  private readonly hash = createHash('md5');
  private readonly limit: number;
  constructor(limit: number) {
    super();
    this.limit = limit;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    if (this.size > this.limit) return done(new ApiError('payload_too_large', 'The object exceeded the maximum allowed size', { code: 'Payload too large' }));
    this.hash.update(chunk);
    done(null, chunk);
  }
  etag(): string {
    return `"${this.hash.digest('hex')}"`;
  }
}

/** Local files under DATA_DIR/storage, two levels of fan-out by key. */
export class LocalBackend implements Backend {
  private readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  private file(key: string): string {
    if (!/^[0-9a-f-]{36}$/.test(key)) throw new Error(`not a byte key: ${key}`);
    return path.join(this.root, key.slice(0, 2), key);
  }

  async write(key: string, body: Readable, maxBytes: number): Promise<Written> {
    const final = this.file(key);
    await mkdir(path.dirname(final), { recursive: true });
    const part = `${final}.part`;
    const meter = new Meter(maxBytes);
    try {
      await pipeline(body, meter, createWriteStream(part));
      await rename(part, final);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
    return { size: meter.size, etag: meter.etag() };
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
  }

  async copy(from: string, to: string): Promise<void> {
    await mkdir(path.dirname(this.file(to)), { recursive: true });
    await copyFile(this.file(from), this.file(to));
  }

  async remove(keys: string[]): Promise<void> {
    await Promise.all(keys.filter((k) => /^[0-9a-f-]{36}$/.test(k)).map((k) => rm(this.file(k), { force: true })));
  }
}
