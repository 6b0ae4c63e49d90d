// Where storage keeps bytes, from the configuration: the object backend and the
// resumable-upload store beside it. The server and the worker open the same.
// The S3 side (the AWS SDK, tens of MB) is imported only when it is used.
import path from 'node:path';
import type { Config } from '../config.ts';
import { LocalBackend, type Backend } from './backend.ts';
import { localResumableStore, type ResumableStore } from './resumable.ts';
import type { S3Settings } from './s3-backend.ts';

export type StorageStores = { backend: Backend; resumable: ResumableStore; check: () => Promise<void> };

export async function openStorageStores(config: Config): Promise<StorageStores> {
  if (config.STORAGE_BACKEND === 'local') {
    const root = path.join(config.dataDir, 'storage');
    return { backend: new LocalBackend(root), resumable: localResumableStore(root, path.join(config.dataDir, 'storage-resumable')), check: async () => undefined };
  }
  const settings: S3Settings = {
    endpoint: config.STORAGE_S3_ENDPOINT,
    region: config.STORAGE_S3_REGION,
    bucket: config.STORAGE_S3_BUCKET!,
    accessKeyId: config.STORAGE_S3_ACCESS_KEY_ID,
    secretAccessKey: config.STORAGE_S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.STORAGE_S3_FORCE_PATH_STYLE ?? Boolean(config.STORAGE_S3_ENDPOINT),
    prefix: config.STORAGE_S3_PREFIX,
  };
  const [{ S3Backend, s3Client, s3ClientConfig }, { s3ResumableStore }] = await Promise.all([import('./s3-backend.ts'), import('./s3-resumable.ts')]);
  const objects = `${settings.prefix}objects/`;
  const backend = new S3Backend(s3Client(settings), settings.bucket, objects);
  return { backend, resumable: s3ResumableStore(s3ClientConfig(settings), settings.bucket, objects, `${settings.prefix}resumable/`), check: () => backend.check() };
}
