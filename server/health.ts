// GET /health: 200 {"status":"ok"} only when the database answers, every
// migration is applied and (when it runs in this process) the worker is up;
// otherwise 503 with which check failed. Also 503 while shutting down, so a
// load balancer stops sending traffic before connections close.
import type { RequestHandler } from 'express';
import type pg from 'pg';
import { ping } from '../db/pool.ts';

export type HealthState = {
  pool: pg.Pool | undefined;
  migrated: boolean;
  worker: { ready: () => boolean } | undefined;
  workerRequired: boolean;
  draining: boolean;
};

export function healthHandler(state: HealthState): RequestHandler {
  return (_req, res) => {
    void (async () => {
      const database = state.pool ? await ping(state.pool, 1500) : false;
      const checks = {
        database: database ? 'ok' : 'unavailable',
        migrations: state.migrated ? 'ok' : 'pending',
        worker: !state.workerRequired ? 'external' : state.worker?.ready() ? 'ok' : 'unavailable',
        server: state.draining ? 'shutting_down' : 'ok',
      };
      const healthy = database && state.migrated && checks.worker !== 'unavailable' && !state.draining;
      res.setHeader('Cache-Control', 'no-store');
      if (healthy) res.status(200).json({ status: 'ok' });
      else res.status(503).json({ status: 'unavailable', checks });
    })();
  };
}
