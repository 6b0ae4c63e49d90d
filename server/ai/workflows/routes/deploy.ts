// Versions and webhook activation (spec 3.4): deploy snapshots the draft as a
// new version and turns the webhook on; undeploy turns it off; versions are
// listed, read one by one, and one activated to roll back; arm opens a 10-minute window for one
// webhook call. Answers {error}.
import type { Router } from 'express';
import { route } from '../../../errors.ts';
import { aiErrors } from '../../errors.ts';
import type { workflowStore } from '../store.ts';
import { workflowIdOf } from './ids.ts';

const versionOf = (raw: unknown): number => {
  const version = Number(raw);
  if (!Number.isInteger(version) || version < 1) throw aiErrors.validation('version must be a whole number of 1 or more');
  return version;
};

export function deployRoutes(r: Router, workflows: ReturnType<typeof workflowStore>): void {
  r.post('/:id/deploy', route(async (req, res) => {
    const version = await workflows.deploy(req, workflowIdOf(req));
    res.json({ deployed: true, version, active_version: version });
  }));

  r.post('/:id/undeploy', route(async (req, res) => {
    await workflows.undeploy(req, workflowIdOf(req));
    res.json({ deployed: false });
  }));

  r.post('/:id/arm', route(async (req, res) => {
    res.json({ ok: true, armed_until: await workflows.arm(req, workflowIdOf(req)) });
  }));

  r.get('/:id/versions', route(async (req, res) => {
    res.json(await workflows.versions(req, workflowIdOf(req)));
  }));

  // One version's graph, as it was deployed (what a diff between two versions compares).
  r.get('/:id/versions/:version', route(async (req, res) => {
    res.json(await workflows.version(req, workflowIdOf(req), versionOf(req.params.version)));
  }));

  r.post('/:id/versions/:version/activate', route(async (req, res) => {
    const version = versionOf(req.params.version);
    res.json({ active_version: await workflows.activate(req, workflowIdOf(req), version) });
  }));
}
