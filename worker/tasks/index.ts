// Every graphile-worker task of the platform, by identifier: the one task
// list. Surfaces add their jobs here (mail, stored bytes, realtime, and the
// AI surface's extraction, indexing, enrichment and runs).
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { AiJobs } from '../../server/ai/index.ts';
import type { Config } from '../../server/config.ts';
import { aiTasks } from './ai.ts';
import { authMailTask } from './auth-mail.ts';
import { authSmsTask } from './auth-sms.ts';
import { REALTIME_CRON, realtimeTasks } from './realtime.ts';
import { STORAGE_CRON, storageTasks } from './storage.ts';
import { studioInviteTask } from './studio-mail.ts';

/** Scheduled jobs, by the surface that declares them. */
export const PLATFORM_CRON = [...STORAGE_CRON, ...REALTIME_CRON];

export function platformTasks(config: Config, log: Logger, ai: AiJobs): TaskList {
  return {
    auth_send_mail: authMailTask(config, log),
    auth_send_sms: authSmsTask(config, log),
    studio_send_invite: studioInviteTask(config, log),
    ...storageTasks(config, log),
    ...realtimeTasks(config, log),
    ...aiTasks(ai),
  };
}
