// A file sent as multipart form data with its progress, for the one route
// that takes one (POST /api/sources/upload, through the control plane).
// fetch() cannot report an upload's progress, so this is XMLHttpRequest; the
// path is checked against the typed AI paths and the answer typed by them.
import type { components, paths } from './ai/index.ts';
import { ApiFailure, csrfHeaders, ref } from './client.ts';

type Source = components['schemas']['Source'];
const UPLOAD: keyof paths = '/api/sources/upload';

export function uploadSource(file: File, fields: Record<string, string>, onProgress: (sent: number, total: number) => void, signal?: AbortSignal): Promise<Source> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', UPLOAD.replace(/^\/api\//, `/api/platform/ai/${encodeURIComponent(ref())}/`));
    for (const [k, v] of Object.entries(csrfHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: the status says what happened
      }
      if (xhr.status === 201) resolve(body as Source);
      else reject(new ApiFailure(xhr.status, body));
    };
    xhr.onerror = () => reject(new Error('The upload was interrupted'));
    xhr.onabort = () => reject(new Error('The upload was cancelled'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
