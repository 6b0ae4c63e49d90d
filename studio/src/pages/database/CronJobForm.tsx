// A cron job, new or edited: its name, schedule (cron syntax in UTC, or
// 'N seconds') and SQL command; previewed as the cron.schedule or
// cron.alter_job call it runs.
import { useState } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';

type Job = components['schemas']['CronJob'];

export function CronJobForm({ editing, onDone, onClose }: { editing?: Job | undefined; onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState(editing?.jobname ?? '');
  const [schedule, setSchedule] = useState(editing?.schedule ?? '*/5 * * * *');
  const [command, setCommand] = useState(editing?.command ?? '');
  const send = (preview: boolean) => editing
    ? must(api.PATCH('/api/platform/pg-meta/{ref}/cron/jobs/{id}', { params: { path: { ref: ref(), id: String(editing.jobid) } }, body: { schedule, command, preview } }))
    : must(api.POST('/api/platform/pg-meta/{ref}/cron/jobs', { params: { path: { ref: ref() } }, body: { name, schedule, command, preview } }));
  return (
    <PreviewedChange title={editing ? `Edit cron job ${editing.jobname ?? editing.jobid}` : 'New cron job'} change={editing ? 'Change the cron job' : 'Schedule the cron job'} wide onClose={onClose}
      preview={async () => (await send(true)).sql}
      run={async () => {
        await send(false);
        onDone();
      }}>
      {!editing && <label>Name<input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} /></label>}
      <label>Schedule (UTC)
        <input required maxLength={200} className="mono" value={schedule} onChange={(e) => setSchedule(e.target.value)} aria-describedby="cron-schedule-help" />
      </label>
      <p id="cron-schedule-help" className="small muted">Five fields (minute hour day-of-month month day-of-week), such as <code>0 3 * * *</code> for 03:00 every day; <code>$</code> is the month&apos;s last day; or <code>30 seconds</code> (1 to 59).</p>
      <label>SQL command<textarea required rows={6} className="mono" value={command} onChange={(e) => setCommand(e.target.value)} /></label>
    </PreviewedChange>
  );
}
