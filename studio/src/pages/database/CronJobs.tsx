// Database -> Cron: the jobs of cron.job (sql/0121) with their last run;
// schedule, edit, pause or resume, and unschedule each, every change shown
// as the pg_cron call it runs; a job's runs in a dialog.
import { useState } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { CronJobForm } from './CronJobForm.tsx';
import { CronRuns } from './CronRuns.tsx';

type Job = components['schemas']['CronJob'];

export function CronJobs() {
  const jobs = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/cron/jobs', { params: { path: { ref: ref() } } })), []);
  const [form, setForm] = useState<{ editing?: Job }>();
  const [history, setHistory] = useState<Job>();
  const [change, setChange] = useState<{ title: string; sql: string; danger: boolean; run: () => Promise<void> }>();
  const [error, setError] = useState<Error>();
  const path = (job: Job) => ({ params: { path: { ref: ref(), id: String(job.jobid) } } });
  const label = (job: Job) => job.jobname ?? `job ${job.jobid}`;
  const toggle = async (job: Job) => {
    try {
      const { sql } = await must(api.PATCH('/api/platform/pg-meta/{ref}/cron/jobs/{id}', { ...path(job), body: { active: !job.active, preview: true } }));
      setChange({ title: `${job.active ? 'Pause' : 'Resume'} ${label(job)}`, sql, danger: false, run: async () => { await must(api.PATCH('/api/platform/pg-meta/{ref}/cron/jobs/{id}', { ...path(job), body: { active: !job.active } })); jobs.reload(); } });
    } catch (e) {
      setError(e as Error);
    }
  };
  const unschedule = async (job: Job) => {
    try {
      const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/cron/jobs/{id}', { ...path(job), body: { preview: true } }));
      setChange({ title: `Unschedule ${label(job)}`, sql, danger: true, run: async () => { await must(api.DELETE('/api/platform/pg-meta/{ref}/cron/jobs/{id}', { ...path(job), body: {} })); jobs.reload(); } });
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <>
      <PageHeader title="Cron jobs">
        <button type="button" className="primary" onClick={() => setForm({})}>New job</button>
      </PageHeader>
      <p className="small muted">Schedules are in UTC. Each job runs as the role that scheduled it (here, the admin login), once per tick across every process.</p>
      <ErrorNote error={jobs.error ?? error} />
      {jobs.loading && !jobs.value ? <Loading what="cron jobs" /> : (jobs.value ?? []).length === 0 ? <p>No cron jobs yet. Schedule one here or with <code>select cron.schedule(…)</code>.</p> : (
        <table className="list-table">
          <caption className="sr-only">Cron jobs</caption>
          <thead><tr><th scope="col">Job</th><th scope="col">Schedule</th><th scope="col">Command</th><th scope="col">Last run</th><th scope="col">Next run</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(jobs.value ?? []).map((job) => (
              <tr key={job.jobid}>
                <td>{label(job)}{job.active ? '' : <span className="muted"> (paused)</span>}</td>
                <td className="mono schedule">{job.schedule}</td>
                <td className="mono small">{job.command.length > 120 ? `${job.command.slice(0, 120)}…` : job.command}</td>
                <td>{job.last_run ? `${job.last_run.status ?? ''} ${job.last_run.start_time ? new Date(job.last_run.start_time).toLocaleString() : ''}` : <span className="muted">never</span>}</td>
                <td>{job.active && job.next_run ? new Date(job.next_run).toLocaleString() : ''}</td>
                <td className="actions">
                  <button type="button" onClick={() => setHistory(job)} aria-label={`Runs of ${label(job)}`}>Runs</button>
                  <button type="button" onClick={() => setForm({ editing: job })} aria-label={`Edit ${label(job)}`}>Edit</button>
                  <button type="button" onClick={() => void toggle(job)} aria-label={`${job.active ? 'Pause' : 'Resume'} ${label(job)}`}>{job.active ? 'Pause' : 'Resume'}</button>
                  <button type="button" className="danger" onClick={() => void unschedule(job)} aria-label={`Unschedule ${label(job)}`}>Unschedule</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {form && <CronJobForm editing={form.editing} onDone={jobs.reload} onClose={() => setForm(undefined)} />}
      {history && <CronRuns jobid={history.jobid} name={label(history)} onClose={() => setHistory(undefined)} />}
      {change && <SqlPreviewDialog title={change.title} sql={change.sql} danger={change.danger} onClose={() => setChange(undefined)} onRun={change.run} />}
    </>
  );
}
