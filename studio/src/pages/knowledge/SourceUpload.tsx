// Documents into sources, dropped or chosen, each with its upload's progress;
// extraction then runs on the server (its status shows in the list).
import { useState, type DragEvent } from 'react';
import { uploadSource } from '../../api/upload.ts';

type Item = { key: string; name: string; sent: number; total: number; state: 'sending' | 'done' | 'failed'; error?: string };

export function SourceUpload({ onUploaded }: { onUploaded: () => void }) {
  const [items, setItems] = useState<Item[]>([]);
  const [over, setOver] = useState(false);
  const update = (key: string, patch: Partial<Item>) => setItems((list) => list.map((i) => (i.key === key ? { ...i, ...patch } : i)));
  const send = (files: File[]) => {
    for (const file of files) {
      const key = `${file.name}-${Date.now()}-${Math.random()}`;
      setItems((list) => [...list, { key, name: file.name, sent: 0, total: file.size, state: 'sending' }]);
      uploadSource(file, {}, (sent, total) => update(key, { sent, total })).then(
        () => { update(key, { state: 'done' }); onUploaded(); },
        (err: Error) => update(key, { state: 'failed', error: err.message }),
      );
    }
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    send([...e.dataTransfer.files]);
  };
  return (
    <div className="stack">
      <div className={`drop-zone${over ? ' over' : ''}`} onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={drop}>
        <p>Drop documents here (PDF, Word, Excel, PowerPoint, text, images), or</p>
        <label className="button">Choose files<input type="file" multiple className="sr-only" onChange={(e) => { send([...(e.target.files ?? [])]); e.target.value = ''; }} /></label>
      </div>
      {items.length > 0 && (
        <ul className="plain-list uploads" aria-label="Uploads">
          {items.map((i) => (
            <li key={i.key}>
              <span>{i.name}</span>{' '}
              <progress max={i.total || 1} value={i.sent} aria-label={`Uploading ${i.name}`} />{' '}
              <span className="small">{i.state === 'sending' ? `${Math.round((i.sent / (i.total || 1)) * 100)}%` : i.state === 'done' ? 'uploaded' : `failed: ${i.error}`}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
