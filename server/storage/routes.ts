// /storage/v1: Supabase Storage's API for supabase-js's storage client. One
// route per file under routes/, grouped by access mode as Supabase Storage
// groups them:
//   routes/authenticated/  behind the key gate, as the caller (their policies decide)
//   routes/public/         public buckets, no key needed
//   routes/signed/         a signed-URL token decides (signed-url.ts), no key needed
// Each makes one domain call through context.ts (SQL in
// sql/0014_storage_functions.sql and later migrations) and shapes the answer.
import express, { type Request, type Router } from 'express';
import type { OpenRoute } from '../gateway.ts';
import { SERVICE } from './calls.ts';
import { inProcessStorage, type InProcessStorage } from './in-process.ts';
import { bucketJson, storageContext, type StorageDeps, type StorageRoute } from './context.ts';
import { bucketCreate } from './routes/authenticated/bucket-create.ts';
import { bucketDelete } from './routes/authenticated/bucket-delete.ts';
import { bucketEmpty } from './routes/authenticated/bucket-empty.ts';
import { bucketGet } from './routes/authenticated/bucket-get.ts';
import { bucketList } from './routes/authenticated/bucket-list.ts';
import { bucketUpdate } from './routes/authenticated/bucket-update.ts';
import { objectCopy } from './routes/authenticated/object-copy.ts';
import { objectDownload } from './routes/authenticated/object-download.ts';
import { objectInfo } from './routes/authenticated/object-info.ts';
import { objectList } from './routes/authenticated/object-list.ts';
import { objectMove } from './routes/authenticated/object-move.ts';
import { objectRemove } from './routes/authenticated/object-remove.ts';
import { objectSign } from './routes/authenticated/object-sign.ts';
import { objectUpload } from './routes/authenticated/object-upload.ts';
import { renderAuthenticated } from './routes/authenticated/render.ts';
import { resumableUpload } from './routes/authenticated/resumable.ts';
import { uploadSign } from './routes/authenticated/upload-sign.ts';
import { publicDownload } from './routes/public/object-download.ts';
import { publicRender } from './routes/public/render.ts';
import { signedDownload } from './routes/signed/object-download.ts';
import { signedRender } from './routes/signed/render.ts';
import { signedUpload } from './routes/signed/upload.ts';

export type { StorageDeps } from './context.ts';

/** What the control plane does with storage, as the service role. */
export type StorageService = {
  buckets: () => Promise<unknown[]>;
  upload: (req: Request, bucket: string, name: string) => Promise<{ Id: string; Key: string }>;
};

/**
 * In order: routes whose paths begin with a fixed word (list, copy, move,
 * sign, info, public, authenticated, upload) come before the generic
 * /object/{bucket}/{path} routes (download, upload, delete) that would
 * otherwise take those words for bucket names.
 */
const ROUTES: StorageRoute[] = [
  bucketList, bucketGet, bucketCreate, bucketUpdate, bucketDelete, bucketEmpty,
  objectList, objectCopy, objectMove, objectInfo, objectSign, uploadSign,
  publicDownload, signedDownload, signedUpload,
  renderAuthenticated, publicRender, signedRender,
  resumableUpload,
  objectRemove, objectDownload, objectUpload,
];

export function storageRoutes(deps: StorageDeps): { router: Router; open: OpenRoute[]; service: StorageService; inProcess: InProcessStorage } {
  const s = storageContext(deps);
  const router = express.Router();
  for (const register of ROUTES) register(router, s);

  /** The public and signed routes: reached without a key. */
  const open: OpenRoute[] = [
    (req) => (req.method === 'GET' || req.method === 'HEAD') && /^\/(object|render\/image)\/(public|sign)\//.test(req.path),
    (req) => req.method === 'PUT' && req.path.startsWith('/object/upload/sign/'),
  ];
  const service: StorageService = {
    buckets: async () => (await s.callAsService<Record<string, unknown>>('select * from storage.buckets order by name', [])).map(bucketJson),
    upload: async (req, bucket, name) => {
      const result = await s.upload(req, bucket, name, { upsert: false, recordAs: SERVICE });
      return { Id: result.id, Key: result.key };
    },
  };
  return { router, open, service, inProcess: inProcessStorage(s) };
}
