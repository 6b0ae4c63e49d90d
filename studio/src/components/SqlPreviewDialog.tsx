// A change shown as the SQL it will run, before it runs (the server answers
// it with `preview: true`); Run sends the same change without preview.
import { useState } from 'react';
import { Dialog } from './Dialog.tsx';
import { ErrorNote } from './ErrorNote.tsx';
import { CodeBlock } from './CodeBlock.tsx';

export function SqlPreviewDialog(props: { title: string; sql: string; danger?: boolean; onRun: () => Promise<void>; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = async () => {
    setBusy(true);
    try {
      await props.onRun();
      props.onClose();
    } catch (e) {
      setError(e as Error);
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} wide>
      <p>This SQL will run:</p>
      <CodeBlock className="sql-preview" label="SQL that will run">{props.sql}</CodeBlock>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" onClick={props.onClose}>Back</button>
        <button type="button" className={props.danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void run()}>Run</button>
      </div>
    </Dialog>
  );
}
