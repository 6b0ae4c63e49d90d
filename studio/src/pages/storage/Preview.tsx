// A file seen in place: images, audio and video from the control plane's
// own URL; PDF and text fetched first (a PDF shown from a blob, text as text,
// at most 200 KB of it). Nothing a file holds runs as a page here.
import { useEffect, useState } from 'react';
import { objectUrl } from './paths.ts';
import { CodeBlock } from '../../components/CodeBlock.tsx';

export function Preview({ bucket, name, type }: { bucket: string; name: string; type: string }) {
  const url = objectUrl(bucket, name);
  const [text, setText] = useState<string>();
  const [blob, setBlob] = useState<string>();
  const isText = /^text\/|json|xml|javascript|csv|yaml/.test(type) || /\.(txt|md|csv|json|sql|log)$/i.test(name);
  const isPdf = type === 'application/pdf';
  useEffect(() => {
    let live = true;
    let made: string | undefined;
    if (isText) void fetch(url, { headers: { range: 'bytes=0-204799' } }).then((r) => r.text()).then((t) => live && setText(t));
    if (isPdf) void fetch(url).then((r) => r.blob()).then((b) => { made = URL.createObjectURL(new Blob([b], { type: 'application/pdf' })); if (live) setBlob(made); });
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [url, isText, isPdf]);
  if (type.startsWith('image/')) return <img className="preview-image" src={url} alt={`Preview of ${name}`} />;
  if (type.startsWith('audio/')) return <audio controls src={url} aria-label={`Audio ${name}`} />;
  if (type.startsWith('video/')) return <video controls src={url} aria-label={`Video ${name}`} className="preview-video" />;
  if (isPdf) return blob ? <iframe className="preview-pdf" src={blob} title={`PDF ${name}`} /> : <p className="muted">Loading the PDF…</p>;
  if (isText) return <CodeBlock className="preview-text" label={`Text of ${name}`}>{text ?? 'Loading…'}</CodeBlock>;
  return <p className="muted">No preview for {type || 'this kind of file'}: download it instead.</p>;
}
