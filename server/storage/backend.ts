// Where object bytes live. Keys are byte versions (random UUIDs) minted by the
// server, never object names, so no name a client sends becomes a file path.
// A write goes to a temporary file first and takes its final key only when it
// is complete, so a cancelled upload leaves no bytes behind.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { storageErrors } from './errors.ts';

export type Written = { size: number; etag: string };

export interface Backend {
  /** Streams bytes under key; refuses (and keeps nothing) past maxBytes. */
  write(key: string, body: Readable, maxBytes: number): Promise<Written>;
  /** Bytes of key, all or the inclusive range. */
  read(key: string, range?: { start: number; end: number }): Readable;
  copy(from: string, to: string): Promise<void>;
  remove(keys: string[]): Promise<void>;
  /** Size and entity tag of bytes written by someone else (a finished resumable upload), without reading them. */
  describe(key: string): Promise<Written>;
  /** Every stored key with its last write, for the sweeper of orphaned bytes. */
  list(): AsyncIterable<{ key: string; modified: Date }>;
  /** A file holding the bytes, where the backend has one (local disk): readers such as sharp then read it themselves. */
  localFile?(key: string): string;
}

/** A byte key: a version minted by newVersion(), or one of its unfinished temporaries. */
export const BYTE_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.part)?$/;

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
  /** Counts one chunk; throws once the total passes the limit. */
  count(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) throw storageErrors.tooLarge();
    this.hash.update(chunk);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    try {
      this.count(chunk);
    } catch (err) {
      return done(err as Error);
    }
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
    if (!BYTE_KEY.test(key)) throw new Error(`not a byte key: ${key}`);
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

  localFile(key: string): string {
    return this.file(key);
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
  }

  async describe(key: string): Promise<Written> {
    // Not hashed: reading a large upload again would cost as much as writing it.
    // The version is unique per write, so it is a sound entity tag.
    return { size: (await stat(this.file(key))).size, etag: `"${key}"` };
  }

  async copy(from: string, to: string): Promise<void> {
    await mkdir(path.dirname(this.file(to)), { recursive: true });
    await copyFile(this.file(from), this.file(to));
  }

  async remove(keys: string[]): Promise<void> {
    await Promise.all(keys.filter((k) => BYTE_KEY.test(k)).map((k) => rm(this.file(k), { force: true })));
  }

  async *list(): AsyncIterable<{ key: string; modified: Date }> {
    let dirs: string[];
    try {
      dirs = await readdir(this.root);
    } catch {
      return;
    }
    for (const dir of dirs) {
      for (const name of await readdir(path.join(this.root, dir)).catch(() => [] as string[])) {
        if (!BYTE_KEY.test(name)) continue;
        const info = await stat(path.join(this.root, dir, name)).catch(() => null);
        if (info) yield { key: name, modified: info.mtime };
      }
    }
  }
}
