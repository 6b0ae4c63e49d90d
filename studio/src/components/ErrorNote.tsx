// An error the server (or the browser) gave, shown as text in an alert.
export function ErrorNote({ error }: { error: Error | string | undefined | null }) {
  if (!error) return null;
  return <p className="error-note" role="alert">{typeof error === 'string' ? error : error.message}</p>;
}
