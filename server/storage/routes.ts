// /storage/v1: Supabase Storage's API for supabase-js's storage client. Each
// route is one SQL call into sql/0014_storage_functions.sql, run as the
// caller's role with the caller's claims (so storage policies decide), plus
// the byte work against the backend. Bytes are written before their row and
// removed if the row is refused; replaced bytes go after the row commits.
import Busboy from 'busboy';
import express, { type Request, type Response, type Router } from 'express';
import type pg from 'pg';
import type { Logger } from 'pino';
import { Readable } from 'node:stream';
import { asRole } from '../../db/as-role.ts';
import { ApiError, route } from '../errors.ts';
import type { OpenRoute } from '../gateway.ts';
import { SERVICE, storageCalls, storageError, type Caller } from './calls.ts';
import { newVersion, type Backend } from './backend.ts';
import { imageRenderer, parseTransform, type ImageLimits, type Transform } from './render.ts';
import type { Locker } from '@tus/utils';
import { resumableRoutes, type ResumableStore } from './resumable.ts';
import { sniff } from './sniff.ts';
import { cacheControlOf, servedType, type ObjectMeta } from './object-meta.ts';
import { signedUrls, type SignedOperation } from './signed-url.ts';

export type StorageDeps = {
  pool: pg.Pool;
  backend: Backend;
  jwtSecret: string;
  /** Per-request ceiling for plain uploads, in bytes. */
  uploadLimit: number;
  resumable: { store: ResumableStore; locker: Locker; maxSize: number; expirySeconds: number };
  images: ImageLimits;
  trustProxy: boolean;
  log: Logger;
};

type ObjectRow = {
  id: string; name: string; bucket_id: string; version: string; metadata: Record<string, unknown> | null; user_metadata: unknown;
  created_at: Date; updated_at: Date; last_accessed_at: Date; inline_active_content: boolean;
};
type BucketRules = { id: string; public: boolean; file_size_limit: string | null; allowed_mime_types: string[] | null; inline_active_content: boolean; type_allowed: boolean };

const SIGNED_URL_MAX = 604_800;

const TRANSFORM_KEYS = ['width', 'height', 'resize', 'quality', 'format'] as const;
const pick = (from: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, from[k]]));

/** The object name of a route ending in `*path`. */
export function objectName(req: Request): string {
  const p = req.params.path as unknown;
  return Array.isArray(p) ? p.join('/') : String(p ?? '');
}

function expiresIn(body: unknown, fallback: number): number {
  const raw = (body as { expiresIn?: unknown } | undefined)?.expiresIn;
  if (raw === undefined || raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ApiError('invalid_request', 'expiresIn must be a positive whole number of seconds', { code: 'InvalidRequest' });
  if (n > SIGNED_URL_MAX) throw new ApiError('invalid_request', `expiresIn must be at most ${SIGNED_URL_MAX} seconds`, { code: 'InvalidRequest' });
  return n;
}

function encodePath(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

/** What the control plane does with storage, as the service role. */
export type StorageService = {
  buckets: () => Promise<unknown[]>;
  upload: (req: Request, bucket: string, name: string) => Promise<{ Id: string; Key: string }>;
};

export function storageRoutes({ pool, backend, jwtSecret, uploadLimit, resumable, images, trustProxy, log }: StorageDeps): { router: Router; open: OpenRoute[]; service: StorageService } {
  const router = express.Router();
  const json = express.json({ limit: '1mb' });

  const ctx = (req: Request): Caller => ({ role: req.auth!.role, claims: req.auth!.claims, method: req.method, path: req.path });
  const callAs = storageCalls(pool);
  const call = <R>(req: Request, sql: string, values: unknown[]) => callAs<R>(ctx(req), sql, values);
  const callAsService = <R>(sql: string, values: unknown[]) => callAs<R>(SERVICE, sql, values);
  const signed = signedUrls(jwtSecret);

  // ---- buckets ----------------------------------------------------------

  const bucketJson = (b: Record<string, unknown>) => ({
    id: b.id, name: b.name, owner: b.owner_id ?? b.owner ?? '', public: b.public, file_size_limit: b.file_size_limit === null ? null : Number(b.file_size_limit),
    allowed_mime_types: b.allowed_mime_types, inline_active_content: b.inline_active_content, created_at: b.created_at, updated_at: b.updated_at,
  });

  router.get('/bucket', route(async (req, res) => {
    const rows = await call<Record<string, unknown>>(req, 'select * from storage.buckets order by name', []);
    res.json(rows.map(bucketJson));
  }));

  router.get('/bucket/:id', route(async (req, res) => {
    const rows = await call<Record<string, unknown>>(req, 'select * from storage.buckets where id = $1', [req.params.id]);
    if (!rows[0]) throw new ApiError('not_found', 'Bucket not found', { code: 'Bucket not found' });
    res.json(bucketJson(rows[0]));
  }));

  router.post('/bucket', json, route(async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.id !== 'string' && typeof b.name !== 'string') throw new ApiError('invalid_request', 'body must have required property \'id\'', { code: 'InvalidRequest' });
    const rows = await call<{ id: string }>(req, 'select (storage.create_bucket($1, $2, $3, $4, $5, $6)).id', [
      b.id ?? b.name, b.name ?? b.id, b.public === true, parseSize(b.file_size_limit), stringList(b.allowed_mime_types), b.inline_active_content === true,
    ]);
    res.json({ name: rows[0]!.id });
  }));

  router.put('/bucket/:id', json, route(async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const changes: Record<string, unknown> = {};
    if ('public' in b) changes.public = b.public === true;
    if ('file_size_limit' in b) changes.file_size_limit = parseSize(b.file_size_limit);
    if ('allowed_mime_types' in b) changes.allowed_mime_types = stringList(b.allowed_mime_types);
    if ('inline_active_content' in b) changes.inline_active_content = b.inline_active_content === true;
    await call(req, 'select storage.update_bucket($1, $2)', [req.params.id, JSON.stringify(changes)]);
    res.json({ message: 'Successfully updated' });
  }));

  router.delete('/bucket/:id', route(async (req, res) => {
    await call(req, 'select storage.delete_bucket($1)', [req.params.id]);
    res.json({ message: 'Successfully deleted' });
  }));

  router.post('/bucket/:id/empty', route(async (req, res) => {
    const rows = await call<{ version: string | null }>(req, 'select v as version from storage.empty_bucket($1) v', [req.params.id]);
    await backend.remove(rows.flatMap((r) => (r.version ? [r.version] : [])));
    res.json({ message: 'Successfully emptied' });
  }));

  // ---- writes -----------------------------------------------------------

  /**
   * Streams the request's file (raw body, or the file part of a multipart
   * form) into the backend under a new key, within the upload ceiling and the
   * bucket's limit, then records it with storage.put_object as `recordAs`.
   */
  const upload = async (req: Request, bucket: string, name: string, opts: { upsert: boolean; recordAs: Caller; spend?: { jti: string; exp: number } }) => {
    const file = await fileOf(req);
    const mimetype = file.contentType || 'application/octet-stream';
    // The rules first, so nothing is stored for a write they refuse.
    const [rules] = await callAsService<BucketRules>('select r.*, storage.mime_allowed(r.allowed_mime_types, $2) as type_allowed from storage.bucket_rules($1) r', [bucket, mimetype]);
    if (!rules || !rules.type_allowed) {
      file.stream.resume();
      if (!rules) throw new ApiError('not_found', 'Bucket not found', { code: 'Bucket not found' });
      throw new ApiError('invalid_request', `mime type ${mimetype} is not supported`, { status: 415, code: 'invalid_mime_type' });
    }
    const limit = Math.min(uploadLimit, rules.file_size_limit === null ? Infinity : Number(rules.file_size_limit));
    const declared = Number(req.headers['content-length']);
    if (file.stream === req && Number.isFinite(declared) && declared > limit) {
      req.resume();
      throw new ApiError('payload_too_large', 'The object exceeded the maximum allowed size', { code: 'Payload too large' });
    }
    const version = newVersion();
    const sniffer = sniff(file.stream);
    let written;
    try {
      written = await backend.write(version, sniffer.stream, limit);
    } catch (err) {
      req.resume();
      throw err;
    }
    let recorded;
    try {
      const metadata = {
        eTag: written.etag, size: written.size, mimetype, cacheControl: file.cacheControl, lastModified: new Date().toISOString(),
        contentLength: written.size, httpStatusCode: 200,
      };
      const args = [bucket, name, version, JSON.stringify(metadata), opts.upsert, file.userMetadata ?? null, sniffer.detected() ?? null];
      [recorded] = await callAs<{ object_id: string; replaced_version: string | null }>(opts.recordAs, opts.spend
        ? 'select * from storage.put_signed_object($8, to_timestamp($9), $1, $2, $3, $4, $5, $6, $7)'
        : 'select * from storage.put_object($1, $2, $3, $4, $5, $6, $7)', opts.spend ? [...args, opts.spend.jti, opts.spend.exp] : args);
    } catch (err) {
      await backend.remove([version]);
      throw err;
    }
    if (recorded!.replaced_version) await backend.remove([recorded!.replaced_version]);
    return { id: recorded!.object_id, key: `${bucket}/${name}` };
  };

  const uploadRoute = (upsertAlways: boolean) =>
    route(async (req, res) => {
      const bucket = String(req.params.bucket);
      const name = objectName(req);
      const upsert = upsertAlways || String(req.headers['x-upsert'] ?? '') === 'true';
      const result = await upload(req, bucket, name, { upsert, recordAs: ctx(req) });
      res.json({ Id: result.id, Key: result.key });
    });

  // ---- reads ------------------------------------------------------------

  const sendObject = async (req: Request, res: Response, obj: ObjectRow) => {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const size = Number(meta.size ?? 0);
    const etag = meta.eTag ?? `"${obj.version}"`;
    const type = servedType(meta.mimetype);
    res.setHeader('Content-Type', type.header);
    res.setHeader('Cache-Control', meta.cacheControl ?? 'max-age=3600');
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', new Date(obj.updated_at).toUTCString());
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', 'sandbox');
    const fileName = obj.name.split('/').pop() ?? 'download';
    const download = typeof req.query.download === 'string' ? req.query.download || fileName : undefined;
    if (download !== undefined || (!type.inlineSafe && !obj.inline_active_content)) {
      res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(download ?? fileName)}`);
    }
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
      res.status(304).end();
      return;
    }
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      throw new ApiError('invalid_request', 'Range Not Satisfiable', { status: 416, code: 'InvalidRange' });
    }
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      res.setHeader('Content-Length', range.end - range.start + 1);
    } else res.setHeader('Content-Length', size);
    if (req.method === 'HEAD') return void res.end();
    const stream = backend.read(obj.version, range ?? undefined);
    stream.on('error', (err) => res.destroy(err));
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  };

  const OBJECT_SELECT = `select o.id, o.name, o.bucket_id, o.version, o.metadata, o.user_metadata, o.created_at, o.updated_at, o.last_accessed_at,
    coalesce((select r.inline_active_content from storage.bucket_rules(o.bucket_id) r), false) as inline_active_content
    from storage.objects o where o.bucket_id = $1 and o.name = $2`;
  const findObject = async (req: Request, bucket: string, name: string, asService = false): Promise<ObjectRow> => {
    const rows = asService ? await callAsService<ObjectRow>(OBJECT_SELECT, [bucket, name]) : await call<ObjectRow>(req, OBJECT_SELECT, [bucket, name]);
    if (!rows[0]) throw new ApiError('not_found', 'Object not found', { code: 'not_found' });
    return rows[0];
  };

  const authenticatedRead = route(async (req, res) => {
    await sendObject(req, res, await findObject(req, String(req.params.bucket), objectName(req)));
  });
  router.get('/object/authenticated/:bucket/*path', authenticatedRead);
  router.head('/object/authenticated/:bucket/*path', authenticatedRead);

  /** An object of a public bucket, for anyone; 400 for a bucket that is not public, as Supabase answers. */
  const publicObject = async (req: Request): Promise<ObjectRow> => {
    const bucket = String(req.params.bucket);
    const [rules] = await callAsService<BucketRules>('select * from storage.bucket_rules($1)', [bucket]);
    if (!rules?.public) throw new ApiError('invalid_request', 'Bucket not found', { code: 'Bucket not found' });
    return findObject(req, bucket, objectName(req), true);
  };
  const publicRead = route(async (req, res) => {
    await sendObject(req, res, await publicObject(req));
  });
  router.get('/object/public/:bucket/*path', publicRead);
  router.head('/object/public/:bucket/*path', publicRead);

  const infoRoute = route(async (req, res) => {
    const obj = await findObject(req, String(req.params.bucket), objectName(req));
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    res.json({
      id: obj.id, name: obj.name, version: obj.version, bucket_id: obj.bucket_id, size: meta.size ?? null, content_type: meta.mimetype ?? null,
      cache_control: meta.cacheControl ?? null, etag: meta.eTag ?? null, metadata: obj.user_metadata ?? null, last_modified: meta.lastModified ?? obj.updated_at,
      created_at: obj.created_at,
    });
  });
  router.get('/object/info/authenticated/:bucket/*path', infoRoute);
  router.get('/object/info/public/:bucket/*path', infoRoute);
  router.get('/object/info/:bucket/*path', infoRoute);

  // ---- list, remove, copy, move -----------------------------------------

  router.post('/object/list/:bucket', json, route(async (req, res) => {
    const b = (req.body ?? {}) as { prefix?: unknown; limit?: unknown; offset?: unknown; search?: unknown; sortBy?: { column?: unknown; order?: unknown } };
    const rows = await call(req, 'select * from storage.list_objects($1, $2, $3, $4, $5, $6, $7)', [
      req.params.bucket, typeof b.prefix === 'string' ? b.prefix : '', intOr(b.limit, 100), intOr(b.offset, 0), typeof b.search === 'string' ? b.search : '',
      typeof b.sortBy?.column === 'string' ? b.sortBy.column : 'name', typeof b.sortBy?.order === 'string' ? b.sortBy.order : 'asc',
    ]);
    res.json(rows);
  }));

  router.delete('/object/:bucket', json, route(async (req, res) => {
    const prefixes = (req.body as { prefixes?: unknown } | undefined)?.prefixes;
    if (!Array.isArray(prefixes) || prefixes.some((p) => typeof p !== 'string')) throw new ApiError('invalid_request', 'body must have an array of strings in \'prefixes\'', { code: 'InvalidRequest' });
    const rows = await call<ObjectRow>(req, 'select * from storage.remove_objects($1, $2)', [req.params.bucket, prefixes]);
    await backend.remove(rows.map((r) => r.version));
    res.json(rows.map(({ version: _v, ...r }) => r));
  }));

  router.delete('/object/:bucket/*path', route(async (req, res) => {
    const rows = await call<ObjectRow>(req, 'select * from storage.remove_objects($1, array[$2])', [req.params.bucket, objectName(req)]);
    if (!rows[0]) throw new ApiError('not_found', 'Object not found', { code: 'not_found' });
    await backend.remove([rows[0].version]);
    res.json({ message: 'Successfully deleted' });
  }));

  const moveBody = (req: Request) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    for (const k of ['bucketId', 'sourceKey', 'destinationKey']) {
      if (typeof b[k] !== 'string' || !b[k]) throw new ApiError('invalid_request', `body must have required property '${k}'`, { code: 'InvalidRequest' });
    }
    return { bucket: b.bucketId as string, source: b.sourceKey as string, destBucket: typeof b.destinationBucket === 'string' && b.destinationBucket ? b.destinationBucket : (b.bucketId as string), dest: b.destinationKey as string };
  };

  router.post('/object/copy', json, route(async (req, res) => {
    const m = moveBody(req);
    const version = newVersion();
    const upsert = String(req.headers['x-upsert'] ?? '') === 'true';
    let copied: { object_id: string; replaced_version: string | null } | undefined;
    try {
      // One transaction: the row is written, the bytes copied, then it commits.
      copied = await asRole(pool, ctx(req), async (c) => {
        const { rows } = await c.query<{ object_id: string; source_version: string; replaced_version: string | null }>('select * from storage.copy_object($1, $2, $3, $4, $5, $6)', [m.bucket, m.source, m.destBucket, m.dest, version, upsert]);
        await backend.copy(rows[0]!.source_version, version);
        return rows[0]!;
      });
    } catch (err) {
      await backend.remove([version]);
      throw storageError(err, req.auth!.role);
    }
    if (copied.replaced_version) await backend.remove([copied.replaced_version]);
    res.json({ Id: copied.object_id, Key: `${m.destBucket}/${m.dest}` });
  }));

  router.post('/object/move', json, route(async (req, res) => {
    const m = moveBody(req);
    await call(req, 'select storage.move_object($1, $2, $3, $4)', [m.bucket, m.source, m.destBucket, m.dest]);
    res.json({ message: 'Successfully moved' });
  }));

  // ---- signed URLs ------------------------------------------------------

  const mint = async (req: Request, bucket: string, name: string, seconds: number, transform?: unknown) => {
    // A transform is checked now, so a bad one fails at signing rather than at every use.
    const transformations = transform && typeof transform === 'object' ? parseTransform(transform as Record<string, unknown>, images) : undefined;
    // The caller must be able to read the object now; the token then stands in for them.
    await findObject(req, bucket, name);
    const token = await signed.sign(transformations ? 'render' : 'object', { url: `${bucket}/${name}`, ...(transformations ? { transformations } : {}) }, seconds);
    return `/${transformations ? 'render/image' : 'object'}/sign/${encodePath(bucket)}/${encodePath(name)}?token=${token}`;
  };

  /** Batch signing: each path that cannot be read gets an error instead of a URL. */
  const signMany = async (req: Request, res: Response, targets: Array<{ path: string; bucket: string; name: string }>) => {
    const seconds = expiresIn(req.body, 60);
    res.json(await Promise.all(targets.map(async (t) => {
      try {
        return { error: null, path: t.path, signedURL: await mint(req, t.bucket, t.name, seconds) };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return { error: 'Either the object does not exist or you do not have access to it', path: t.path, signedURL: null };
        throw err;
      }
    })));
  };
  const pathsOf = (req: Request): string[] => {
    const paths = (req.body as { paths?: unknown } | undefined)?.paths;
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new ApiError('invalid_request', 'body must have an array of strings in \'paths\'', { code: 'InvalidRequest' });
    return paths as string[];
  };
  // supabase-js's createSignedUrls: paths within the bucket of the URL.
  router.post('/object/sign/:bucket', json, route(async (req, res) => {
    await signMany(req, res, pathsOf(req).map((p) => ({ path: p, bucket: String(req.params.bucket), name: p })));
  }));
  // The spec's batch form: each path is <bucket>/<path>.
  router.post('/object/sign', json, route(async (req, res) => {
    await signMany(req, res, pathsOf(req).map((p) => ({ path: p, bucket: p.split('/')[0]!, name: p.split('/').slice(1).join('/') })));
  }));

  router.post('/object/sign/:bucket/*path', json, route(async (req, res) => {
    const seconds = expiresIn(req.body, 60);
    const transform = (req.body as { transform?: unknown } | undefined)?.transform;
    res.json({ signedURL: await mint(req, String(req.params.bucket), objectName(req), seconds, transform) });
  }));

  /** The claims of the request's token, if it was minted for this route's operation on exactly this bucket and path. */
  const signedFor = (req: Request, op: SignedOperation, bucket: string, name: string) => signed.verify(op, req.query.token, bucket, name);

  const signedRead = route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    await signedFor(req, 'object', bucket, name);
    await sendObject(req, res, await findObject(req, bucket, name, true));
  });
  router.get('/object/sign/:bucket/*path', signedRead);
  router.head('/object/sign/:bucket/*path', signedRead);

  router.post('/object/upload/sign/:bucket/*path', json, route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const upsert = String(req.headers['x-upsert'] ?? '') === 'true';
    // The caller must be able to write this name now; the token then stands in for them.
    await call(req, 'select storage.can_upload($1, $2, $3)', [bucket, name, upsert]);
    const token = await signed.sign('upload', { url: `${bucket}/${name}`, upsert, owner: req.auth!.claims.sub ?? null, signer_role: req.auth!.role }, expiresIn(req.body, 7200));
    res.json({ url: `/object/upload/sign/${encodePath(bucket)}/${encodePath(name)}?token=${token}`, token });
  }));

  router.put('/object/upload/sign/:bucket/*path', route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const claims = await signedFor(req, 'upload', bucket, name);
    // Recorded as the signer: their role and sub, so owner and policies are theirs; the token is spent with the write.
    const role = claims.signer_role ?? 'anon';
    const signer: Caller = { role, claims: { role, ...(typeof claims.owner === 'string' ? { sub: claims.owner } : {}) } };
    const result = await upload(req, bucket, name, { upsert: claims.upsert === true, recordAs: signer, spend: { jti: claims.jti!, exp: claims.exp! } });
    res.json({ Id: result.id, Key: result.key });
  }));

  // ---- image transformation ---------------------------------------------

  const renderer = imageRenderer(backend, images);
  const renderObject = (req: Request, res: Response, obj: ObjectRow, t: Transform) => {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    return renderer(req, res, { version: obj.version, size: Number(meta.size ?? 0), cacheControl: meta.cacheControl ?? 'max-age=3600', updatedAt: new Date(obj.updated_at) }, t);
  };
  const renderAuthenticated = route(async (req, res) => {
    const t = parseTransform(req.query as Record<string, unknown>, images);
    await renderObject(req, res, await findObject(req, String(req.params.bucket), objectName(req)), t);
  });
  const renderPublic = route(async (req, res) => {
    const t = parseTransform(req.query as Record<string, unknown>, images);
    await renderObject(req, res, await publicObject(req), t);
  });
  // A signed render takes its options from the token only: the URL cannot ask for more.
  const renderSigned = route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const claims = await signedFor(req, 'render', bucket, name);
    const t = parseTransform((claims.transformations ?? {}) as Record<string, unknown>, images);
    // Options in the URL may repeat the signed ones, never change them.
    const asked = TRANSFORM_KEYS.filter((k) => k in req.query);
    if (asked.length > 0 && JSON.stringify(parseTransform({ ...t, ...pick(req.query, asked) }, images)) !== JSON.stringify(t)) {
      throw new ApiError('invalid_request', 'The transformation does not match the signed one', { code: 'InvalidSignature' });
    }
    await renderObject(req, res, await findObject(req, bucket, name, true), t);
  });
  for (const [mode, handler] of [['authenticated', renderAuthenticated], ['public', renderPublic], ['sign', renderSigned]] as const) {
    router.get(`/render/image/${mode}/:bucket/*path`, handler);
    router.head(`/render/image/${mode}/:bucket/*path`, handler);
  }

  // ---- resumable upload (TUS) ------------------------------------------

  const tus = resumableRoutes({
    resumable: resumable.store, locker: resumable.locker, backend, callAs, maxSize: resumable.maxSize, expirySeconds: resumable.expirySeconds, trustProxy, log,
  });
  router.all('/upload/resumable', tus);
  router.all('/upload/resumable/*rest', tus);

  // Last, so the words above (list, copy, move, sign, info, public, authenticated,
  // upload) are routes first: /object/{bucket}/{path} itself is the upload
  // (POST, PUT to overwrite) and supabase-js's download() and exists().
  router.post('/object/:bucket/*path', uploadRoute(false));
  router.put('/object/:bucket/*path', uploadRoute(true));
  router.get('/object/:bucket/*path', authenticatedRead);
  router.head('/object/:bucket/*path', authenticatedRead);

  const open: OpenRoute[] = [
    (req) => (req.method === 'GET' || req.method === 'HEAD') && /^\/(object|render\/image)\/(public|sign)\//.test(req.path),
    (req) => req.method === 'PUT' && req.path.startsWith('/object/upload/sign/'),
  ];
  const service: StorageService = {
    buckets: async () => (await callAsService<Record<string, unknown>>('select * from storage.buckets order by name', [])).map(bucketJson),
    upload: async (req, bucket, name) => {
      const result = await upload(req, bucket, name, { upsert: false, recordAs: SERVICE });
      return { Id: result.id, Key: result.key };
    },
  };
  return { router, open, service };
}

function intOr(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new ApiError('invalid_request', 'limit and offset must be whole numbers', { code: 'InvalidRequest' });
  return n;
}

/** file_size_limit as supabase-js sends it: bytes, or a string like '5MB'. */
function parseSize(v: unknown): number | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  const m = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(v) : null;
  if (!m) throw new ApiError('invalid_request', 'file_size_limit must be a number of bytes or a size such as "5MB"', { code: 'InvalidRequest' });
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.round(Number(m[1]) * unit);
}

/** A list of strings or null; what each string may be is the bucket trigger's rule. */
function stringList(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw new ApiError('invalid_request', 'allowed_mime_types must be an array of strings', { code: 'InvalidRequest' });
  return v as string[];
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // not a single byte range: the whole object
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

type IncomingFile = { stream: Readable; contentType: string; cacheControl: string; userMetadata: string | undefined };

/** The file in a request: the raw body, or the file part of a multipart form (supabase-js sends Blobs that way). */
function fileOf(req: Request): Promise<IncomingFile> {
  const type = String(req.headers['content-type'] ?? '');
  const cacheHeader = req.headers['cache-control'];
  const cacheControl = cacheControlOf(cacheHeader);
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    const meta = req.headers['x-metadata'];
    return Promise.resolve({
      stream: req,
      contentType: type || 'application/octet-stream',
      cacheControl,
      userMetadata: typeof meta === 'string' ? decodeMetadata(meta) : undefined,
    });
  }
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 64 * 1024 } });
    } catch {
      return reject(new ApiError('invalid_request', 'Malformed multipart body', { code: 'InvalidRequest' }));
    }
    const fields: Record<string, string> = {};
    let found = false;
    busboy.on('field', (name, value) => {
      fields[name] = value;
    });
    busboy.on('file', (_name, stream, info) => {
      found = true;
      resolve({
        stream,
        contentType: fields.contentType || info.mimeType || 'application/octet-stream',
        cacheControl: /^\d+$/.test(fields.cacheControl ?? '') ? cacheControlOf(fields.cacheControl) : cacheControl,
        userMetadata: fields.metadata ? validJson(fields.metadata) : undefined,
      });
    });
    busboy.on('error', () => reject(new ApiError('invalid_request', 'Malformed multipart body', { code: 'InvalidRequest' })));
    busboy.on('close', () => {
      if (!found) reject(new ApiError('invalid_request', 'The form has no file', { code: 'InvalidRequest' }));
    });
    req.pipe(busboy);
  });
}

function validJson(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    throw new ApiError('invalid_request', 'metadata must be JSON', { code: 'InvalidRequest' });
  }
}

function decodeMetadata(header: string): string {
  return validJson(Buffer.from(header, 'base64').toString('utf8'));
}
