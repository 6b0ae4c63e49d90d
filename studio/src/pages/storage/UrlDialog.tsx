// A link to a file to give out: the public URL of a public bucket's file, or
// a signed URL that works for the time chosen (on the project API either way).
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useProject } from '../../app/session.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { publicUrl } from './paths.ts';

const EXPIRIES: Array<[number, string]> = [[60, 'a minute'], [3600, 'an hour'], [86_400, 'a day'], [604_800, 'a week']];

export function UrlDialog({ bucket, name, isPublic, onClose }: { bucket: string; name: string; isPublic: boolean; onClose: () => void }) {
  const project = useProject();
  const [expires, setExpires] = useState(3600);
  const [url, setUrl] = useState<string>(isPublic ? publicUrl(project.api_url, bucket, name) : '');
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<Error>();
  const sign = async () => {
    try {
      const { signedURL } = await must(api.POST('/api/platform/storage/{ref}/v1/object/sign/{bucket}/{path}', { params: { path: { ref: ref(), bucket, path: name } }, body: { expiresIn: expires } }));
      setUrl(`${project.api_url}/storage/v1${signedURL}`);
      setCopied(false);
    } catch (e) {
      setError(e as Error);
    }
  };
  const copy = async () => {
    await navigator.clipboard.writeText(url).catch(() => undefined);
    setCopied(true);
  };
  return (
    <Dialog title={`Link to ${name}`} onClose={onClose}>
      {!isPublic && (
        <div className="field-row">
          <label>Works for
            <select value={expires} onChange={(e) => setExpires(Number(e.target.value))}>{EXPIRIES.map(([s, l]) => <option key={s} value={s}>{l}</option>)}</select>
          </label>
          <button type="button" className="primary" onClick={() => void sign()}>Make signed URL</button>
        </div>
      )}
      <ErrorNote error={error} />
      {url && (
        <>
          <label>URL<input readOnly value={url} onFocus={(e) => e.target.select()} data-testid="object-url" /></label>
          <button type="button" onClick={() => void copy()}>Copy URL</button>
          {copied && <span role="status" className="muted"> Copied</span>}
        </>
      )}
    </Dialog>
  );
}
