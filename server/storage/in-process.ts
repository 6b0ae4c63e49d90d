// Storage called from inside the server (workflow blocks, agent tools): read,
// write and list objects as a given caller, through the same SQL functions
// and byte backend as /storage/v1, so storage policies and bucket rules apply.
import { Readable } from 'node:stream';
import type { Caller } from './calls.ts';
import type { StorageContext } from './context.ts';
import { storageErrors } from './errors.ts';
import type { ObjectMeta } from './object-meta.ts';

export type InProcessStorage = {
  /** An object's bytes, at most `maxBytes`; its type and size. */
  read: (caller: Caller, bucket: string, name: string, maxBytes: number) => Promise<{ contentType: string; size: number; bytes: Buffer; truncated: boolean }>;
  write: (caller: Caller, bucket: string, name: string, content: Buffer, contentType: string, upsert: boolean) => Promise<{ id: string; key: string }>;
  list: (caller: Caller, bucket: string, prefix: string, limit: number) => Promise<unknown[]>;
  /** Removes objects by name (rows in SQL as the caller, then their bytes); answers the names removed. */
  remove: (caller: Caller, bucket: string, names: string[]) => Promise<string[]>;
};

export function inProcessStorage(s: StorageContext): InProcessStorage {
  return {
    read: async (caller, bucket, name, maxBytes) => {
      const obj = await s.findObjectAs(caller, bucket, name);
      const meta = (obj.metadata ?? {}) as ObjectMeta;
      const size = Number(meta.size ?? 0);
      const chunks: Buffer[] = [];
      let read = 0;
      if (size > 0) {
        for await (const chunk of s.backend.read(obj.version, { start: 0, end: Math.min(size, maxBytes) - 1 })) {
          chunks.push(chunk as Buffer);
          read += (chunk as Buffer).length;
        }
      }
      return { contentType: meta.mimetype ?? 'application/octet-stream', size, bytes: Buffer.concat(chunks, read), truncated: size > maxBytes };
    },
    write: (caller, bucket, name, content, contentType, upsert) =>
      s.store({ stream: Readable.from([content]), contentType, cacheControl: 'max-age=3600', userMetadata: undefined }, content.length, () => undefined, bucket, name, { upsert, recordAs: caller }),
    remove: async (caller, bucket, names) => {
      if (names.length === 0) return [];
      const rows = await s.callAs<{ name: string; version: string }>(caller, 'select * from storage.remove_objects($1, $2)', [bucket, names]);
      await s.backend.remove(rows.map((r) => r.version));
      return rows.map((r) => r.name);
    },
    list: async (caller, bucket, prefix, limit) => {
      if (!bucket) throw storageErrors.bucketNotFound();
      return s.callAs(caller, 'select * from storage.list_objects($1, $2, $3, $4, $5, $6, $7)', [bucket, prefix, limit, 0, '', 'name', 'asc']);
    },
  };
}
