// Files into a folder of a bucket, dropped or chosen, each with its own
// progress bar, over the Storage API's resumable (TUS) path that clients use:
// a large file goes in 6 MB pieces and an interrupted one picks up again.
import { useState, type DragEvent } from 'react';
import { Upload } from 'tus-js-client';
import { csrfHeaders } from '../../api/client.ts';
import { storageBase } from './paths.ts';

type Item = { name: string; size: number; sent: number; state: 'sending' | 'done' | 'failed'; error?: string };

export function Uploader({ bucket, prefix, onUploaded }: { bucket: string; prefix: string; onUploaded: () => void }) {
  const [items, setItems] = useState<Item[]>([]);
  const [over, setOver] = useState(false);
  const update = (name: string, patch: Partial<Item>) => setItems((list) => list.map((i) => (i.name === name ? { ...i, ...patch } : i)));

  const send = (files: File[]) => {
    for (const file of files) {
      const objectName = `${prefix}${file.name}`;
      setItems((list) => [...list.filter((i) => i.name !== objectName), { name: objectName, size: file.size, sent: 0, state: 'sending' }]);
      const upload = new Upload(file, {
        endpoint: `${storageBase()}/upload/resumable`,
        headers: { ...csrfHeaders(), 'x-upsert': 'true' },
        metadata: { bucketName: bucket, objectName, contentType: file.type || 'application/octet-stream', cacheControl: '3600' },
        chunkSize: 6 * 1024 * 1024,
        retryDelays: [0, 1000, 3000],
        removeFingerprintOnSuccess: true,
        onProgress: (sent) => update(objectName, { sent }),
        onSuccess: () => {
          update(objectName, { sent: file.size, state: 'done' });
          onUploaded();
        },
        onError: (e) => update(objectName, { state: 'failed', error: e.message.replace(/^tus: /, '').slice(0, 300) }),
      });
      upload.start();
    }
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    send([...e.dataTransfer.files]);
  };

  return (
    <section className={over ? 'drop-zone over' : 'drop-zone'} aria-label="Upload files" onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={drop}>
      <p>Drop files here, or <label className="button">choose files<input className="sr-only" type="file" multiple onChange={(e) => e.target.files && send([...e.target.files])} /></label></p>
      {items.length > 0 && (
        <ul className="plain-list uploads">
          {items.map((i) => (
            <li key={i.name}>
              <span className="mono small">{i.name}</span>
              <progress max={i.size || 1} value={i.sent} aria-label={`Upload of ${i.name}`} />
              <span className="small" role="status">{i.state === 'done' ? 'uploaded' : i.state === 'failed' ? `failed: ${i.error}` : `${Math.round((i.sent / (i.size || 1)) * 100)}%`}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
