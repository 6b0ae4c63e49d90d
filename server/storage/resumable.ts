// Resumable uploads (TUS 1.0) at /storage/v1/upload/resumable, with @tus/server.
// The upload's id is the byte version the finished object gets, so bytes are
// written where they will stay (no copy at the end): on local disk beside the
// other objects (@tus/file-store), on S3 at the object's key (s3-resumable.ts,
// loaded only when storage is on S3).
// Authorisation is SQL's: storage.begin_resumable at creation (bucket rules,
// the caller's policies), storage.require_resumable on every later request,
// storage.finish_resumable when the last byte arrives (policies again, then the
// object row). Unfinished uploads expire; the worker deletes their bytes.
import { FileStore } from '@tus/file-store';
import { EVENTS, Server } from '@tus/server';
import type { DataStore, KvStore, Locker, Upload } from '@tus/utils';
import type { Request, RequestHandler } from 'express';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { toApiError } from '../errors.ts';
import { storageBody, storageErrors } from './errors.ts';
import { SERVICE, type CallAs, type Caller } from './calls.ts';
import type { Backend } from './backend.ts';
import { cacheControlOf } from './object-meta.ts';
import { detectType, HEAD_BYTES } from './sniff.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A TUS data store whose ids are byte versions, plus how it forgets a finished upload's bookkeeping. */
export type ResumableStore = {
  store: DataStore;
  /** The store's id for a byte version (where the bytes are written). */
  idOf: (version: string) => string;
  /** Drops the upload's own records once its bytes belong to an object. */
  forget: (version: string) => Promise<void>;
};

/**
 * Deletes everything an upload left: the store's bytes and records, and the
 * bytes at the version's key (a finished upload's, which the store no longer
 * tracks). Best effort: any of them may never have been written.
 */
export async function discardUpload(resumable: ResumableStore, backend: Backend, version: string): Promise<void> {
  await resumable.store.remove(resumable.idOf(version)).catch(() => undefined);
  await resumable.forget(version).catch(() => undefined);
  await backend.remove([version]).catch(() => undefined);
}

/** Upload records (offset, metadata) as JSON files by version, apart from the bytes. */
class UploadRecords implements KvStore<Upload> {
  private readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }
  private file(key: string): string {
    return path.join(this.dir, `${path.basename(key)}.json`);
  }
  async get(key: string): Promise<Upload | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8')) as Upload;
    } catch {
      return undefined;
    }
  }
  async set(key: string, value: Upload): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(this.file(key), JSON.stringify(value));
  }
  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }
}

/** Local disk: bytes under the local backend's root at their final place, records in a folder beside it. */
export function localResumableStore(storageRoot: string, recordsDir: string): ResumableStore {
  const records = new UploadRecords(recordsDir);
  return {
    store: new FileStore({ directory: storageRoot, configstore: records }),
    idOf: (version) => `${version.slice(0, 2)}/${version}`,
    forget: (version) => records.delete(version),
  };
}

export type ResumableDeps = {
  resumable: ResumableStore;
  /** Shared by every replica (Postgres advisory locks): one writer per upload at a time. */
  locker: Locker;
  backend: Backend;
  callAs: CallAs;
  maxSize: number;
  expirySeconds: number;
  trustProxy: boolean;
  log: Logger;
};

/** The tus error a hook throws: the storage error body, as JSON. */
function tusError(err: unknown): { status_code: number; body: string } {
  const e = toApiError(err);
  return { status_code: e.status, body: JSON.stringify(storageBody(e)) };
}

export function resumableRoutes({ resumable, locker, backend, callAs, maxSize, expirySeconds, trustProxy, log }: ResumableDeps): RequestHandler {
  const versionOf = (id: string) => path.posix.basename(id);
  // The Express request behind srvx's web request: its `auth` is the gateway's verdict.
  const callerOf = (req: unknown): Caller => {
    const node = (req as { runtime?: { node?: { req?: Request } } }).runtime?.node?.req;
    if (!node?.auth) throw storageErrors.missingAuthorization();
    return { role: node.auth.role, claims: node.auth.claims, method: node.method, path: node.path };
  };

  /** Where the creating POST came, as the client addressed it (Express has stripped its mounts from req.url, not from originalUrl). */
  const createdAt = (req: unknown): string => {
    const node = (req as { runtime?: { node?: { req?: Request } } }).runtime?.node?.req;
    return (node?.originalUrl ?? '/storage/v1/upload/resumable').split('?')[0]!.replace(/\/+$/, '');
  };

  const server = new Server({
    path: '/upload/resumable',
    datastore: resumable.store,
    locker,
    maxSize,
    respectForwardedHeaders: trustProxy,
    allowedHeaders: ['apikey', 'x-upsert', 'x-client-info'],
    namingFunction: () => resumable.idOf(crypto.randomUUID()),
    // Under the path the upload was created at: /storage/v1 on the project API, the Studio's own mount on the control plane.
    generateUrl: (req, { proto, host, id }) => `${proto}://${host}${createdAt(req)}/${versionOf(id)}`,
    getFileIdFromRequest: (_req, last) => (last && UUID.test(last) ? resumable.idOf(last) : undefined),
    onIncomingRequest: async (req, id) => {
      if (req.method === 'POST' || req.method === 'OPTIONS') return;
      try {
        await callAs(callerOf(req), 'select storage.require_resumable($1)', [versionOf(id)]);
        if (req.method === 'HEAD') await finishOnHead(req, id);
      } catch (err) {
        throw tusError(err);
      }
    },
    onUploadCreate: async (req, upload) => {
      try {
        const m = upload.metadata ?? {};
        if (!m.bucketName || !m.objectName) throw storageErrors.tusMetadata();
        const cacheControl = cacheControlOf(m.cacheControl ?? undefined);
        let userMetadata: string | null = null;
        if (m.metadata) {
          try {
            userMetadata = JSON.stringify(JSON.parse(m.metadata));
          } catch {
            throw storageErrors.tusMetadataNotJson();
          }
        }
        const upsert = req.headers.get('x-upsert') === 'true';
        await callAs(callerOf(req), 'select storage.begin_resumable($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
          versionOf(upload.id), m.bucketName, m.objectName, upsert, upload.size ?? null, m.contentType || 'application/octet-stream', cacheControl, userMetadata, maxSize, expirySeconds,
        ]);
        return {};
      } catch (err) {
        throw tusError(err);
      }
    },
    onUploadFinish: async (req, upload) => {
      const version = versionOf(upload.id);
      try {
        const row = await finish(callerOf(req), version);
        await forget(version);
        return { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Id: row.object_id, Key: `${row.bucket_id}/${row.name}` }) };
      } catch (err) {
        throw tusError(err);
      }
    },
  });

  /**
   * Records the object of an upload whose bytes are all written (policies and
   * type checked again). Refused (a policy changed, the name was taken, the
   * bytes are not allowed): nothing is kept. Any other failure (the database
   * restarting) keeps the upload, and its next HEAD finishes it.
   */
  const finish = async (caller: Caller, version: string) => {
    try {
      const written = await backend.describe(version);
      const head = await firstBytes(backend, version, written.size);
      const [row] = await callAs<{ object_id: string; bucket_id: string; name: string; replaced_version: string | null }>(caller,
        'select * from storage.finish_resumable($1, $2, $3)', [version, JSON.stringify({ size: written.size, eTag: written.etag }), detectType(head) ?? null]);
      if (row!.replaced_version) await backend.remove([row!.replaced_version]);
      return row!;
    } catch (err) {
      if (toApiError(err).status < 500) {
        await callAs(SERVICE, 'select storage.cancel_resumable($1)', [version]).catch(() => undefined);
        await discardUpload(resumable, backend, version);
      } else log.warn({ version, error: (err as Error).message }, 'resumable upload complete but not recorded; kept for its next HEAD');
      throw err;
    }
  };
  const forget = (version: string) =>
    resumable.forget(version).catch((err: Error) => log.warn({ version, error: err.message }, 'resumable upload record not removed'));

  /**
   * A HEAD on an upload whose bytes all arrived but whose object was not
   * recorded (the database was away at the last chunk): record it now, so the
   * client, which takes offset = length as done, finds its object. The
   * upload's record goes once this HEAD has answered from it.
   */
  const finishOnHead = async (req: Parameters<NonNullable<ConstructorParameters<typeof Server>[0]['onIncomingRequest']>>[0], id: string) => {
    const upload = await resumable.store.getUpload(id).catch(() => undefined);
    if (!upload || upload.size === undefined || upload.offset !== upload.size) return;
    const version = versionOf(id);
    await finish(callerOf(req), version);
    const res = (req as { runtime?: { node?: { res?: import('node:http').ServerResponse } } }).runtime?.node?.res;
    if (res) res.once('close', () => void forget(version));
    else await forget(version);
  };

  server.on(EVENTS.POST_TERMINATE, (_req, _res, id) => {
    void callAs(SERVICE, 'select storage.cancel_resumable($1)', [versionOf(id)]).catch((err: Error) => log.warn({ error: err.message }, 'cancelled upload not recorded'));
  });

  return (req, res, next) => {
    server.handle(req, res).catch(next);
  };
}

async function firstBytes(backend: Backend, version: string, size: number): Promise<Buffer> {
  if (size === 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of backend.read(version, { start: 0, end: Math.min(size, HEAD_BYTES) - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
