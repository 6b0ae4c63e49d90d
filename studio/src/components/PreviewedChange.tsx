// A form for a change to the database that is shown as SQL before it runs:
// its fields (the children), then "Review SQL" asks the server for the SQL
// (`preview`), shows it, and Run sends the change (`run`). A refusal at either
// step is shown in the form or the preview; nothing runs unseen.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Dialog } from './Dialog.tsx';
import { ErrorNote } from './ErrorNote.tsx';
import { SqlPreviewDialog } from './SqlPreviewDialog.tsx';

type Props = {
  title: string;
  /** The preview dialog's title. */
  change: string;
  wide?: boolean;
  /** The SQL the change will run, from the server; throw an Error to refuse (it is shown). */
  preview: () => Promise<string>;
  run: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
};

export function PreviewedChange(p: Props) {
  const [sql, setSql] = useState<string>();
  const [error, setError] = useState<Error>();
  const review = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      setSql(await p.preview());
    } catch (err) {
      setError(err as Error);
    }
  };
  if (sql !== undefined) {
    return <SqlPreviewDialog title={p.change} sql={sql} onClose={() => setSql(undefined)} onRun={async () => {
      await p.run();
      p.onClose();
    }} />;
  }
  return (
    <Dialog title={p.title} onClose={p.onClose} {...(p.wide ? { wide: true } : {})}>
      <form className="stack" onSubmit={(e) => void review(e)}>
        {p.children}
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={p.onClose}>Cancel</button>
          <button type="submit" className="primary">Review SQL</button>
        </div>
      </form>
    </Dialog>
  );
}
