// Where the Studio reaches a bucket's objects: the control plane's Storage
// API (as the service role), never the project API with a key.
import { ref } from '../../api/client.ts';

const enc = (name: string) => name.split('/').map(encodeURIComponent).join('/');

export const storageBase = () => `/api/platform/storage/${ref()}/v1`;
/** An object's bytes, for previews and downloads. */
export const objectUrl = (bucket: string, name: string, download = false) => `${storageBase()}/object/${encodeURIComponent(bucket)}/${enc(name)}${download ? '?download' : ''}`;
/** The public URL on the project API (a public bucket's objects need no key). */
export const publicUrl = (apiUrl: string, bucket: string, name: string) => `${apiUrl}/storage/v1/object/public/${encodeURIComponent(bucket)}/${enc(name)}`;
