// /upload/resumable: TUS 1.0 (resumable.ts), authorised in SQL at every step.
import type { StorageRoute } from '../../context.ts';
import { resumableRoutes } from '../../resumable.ts';

export const resumableUpload: StorageRoute = (r, s) => {
  const { resumable, backend, trustProxy, log } = s.deps;
  const tus = resumableRoutes({
    resumable: resumable.store, locker: resumable.locker, backend, callAs: s.callAs, maxSize: resumable.maxSize, expirySeconds: resumable.expirySeconds, trustProxy, log,
  });
  r.all('/upload/resumable', tus);
  r.all('/upload/resumable/*rest', tus);
};
