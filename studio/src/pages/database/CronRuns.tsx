// A cron job's recent runs (cron.job_run_details): when, how long, how it
// ended and what it said, newest first.
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';

export function CronRuns({ jobid, name, onClose }: { jobid: number; name: string; onClose: () => void }) {
  const runs = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/cron/jobs/{id}/runs', { params: { path: { ref: ref(), id: String(jobid) } } })), [jobid]);
  return (
    <Dialog title={`Runs of ${name}`} onClose={onClose} wide>
      <ErrorNote error={runs.error} />
      {runs.loading && !runs.value ? <Loading what="runs" /> : (runs.value ?? []).length === 0 ? <p>No runs yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">Runs of {name}</caption>
          <thead><tr><th scope="col">Run</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Status</th><th scope="col">Message</th></tr></thead>
          <tbody>
            {(runs.value ?? []).map((r) => (
              <tr key={r.runid}>
                <td>{r.runid}</td>
                <td>{r.start_time ? new Date(r.start_time).toLocaleString() : ''}</td>
                <td>{r.duration_ms === null ? '' : `${r.duration_ms} ms`}</td>
                <td>{r.status ?? ''}</td>
                <td className="mono small">{r.return_message ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Dialog>
  );
}
