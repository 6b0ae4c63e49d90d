// Resumable uploads on S3 (@tus/s3-store): the finished upload is the object
// at the S3 backend's key. Loaded only when STORAGE_BACKEND is s3, so a server
// on local disk never loads the AWS SDK.
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { S3Store } from '@tus/s3-store';
import path from 'node:path';
import type { ResumableStore } from './resumable.ts';

/** S3: the finished upload is the object at the S3 backend's key; its .info and .part records live under a separate prefix. */
export function s3ResumableStore(clientConfig: S3ClientConfig, bucket: string, objectsPrefix: string, recordsPrefix: string): ResumableStore {
  class Store extends S3Store {
    protected override infoKey(id: string): string {
      return `${recordsPrefix}${path.posix.basename(id)}.info`;
    }
    protected override partKey(id: string, isIncomplete = false): string {
      return isIncomplete ? `${recordsPrefix}${path.posix.basename(id)}.part` : id;
    }
    // @tus/s3-store's remove leaves a pending incomplete part (chunks under 5 MB) behind.
    override async remove(id: string): Promise<void> {
      try {
        await super.remove(id);
      } finally {
        await this.client.deleteObject({ Bucket: this.bucket, Key: this.partKey(id, true) }).catch(() => undefined);
      }
    }
    async forget(version: string): Promise<void> {
      await this.client.deleteObject({ Bucket: this.bucket, Key: this.infoKey(version) });
      this.clearCache(`${objectsPrefix}${version.slice(0, 2)}/${version}`);
    }
  }
  const store = new Store({ s3ClientConfig: { ...clientConfig, bucket }, partSize: 8 * 1024 * 1024 });
  return { store, idOf: (version) => `${objectsPrefix}${version.slice(0, 2)}/${version}`, forget: (version) => store.forget(version) };
}
