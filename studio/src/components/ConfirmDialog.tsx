// Asks before something destructive (drop, delete, empty, ban): says what
// will happen, shows the SQL or call when there is one, and needs a click on
// a button named for the action.
import { useState } from 'react';
import { Dialog } from './Dialog.tsx';
import { ErrorNote } from './ErrorNote.tsx';
import { CodeBlock } from './CodeBlock.tsx';

export function ConfirmDialog(props: { title: string; message: string; sql?: string | undefined; action: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (e) {
      setError(e as Error);
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <p>{props.message}</p>
      {props.sql && <CodeBlock className="sql-preview" label="SQL that will run">{props.sql}</CodeBlock>}
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" onClick={props.onClose}>Cancel</button>
        <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>{props.action}</button>
      </div>
    </Dialog>
  );
}
