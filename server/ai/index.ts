// The AI surface under /api: every AI router behind the one identity check
// (auth.ts), each answering in the error body of part 7 it declares
// (errors.ts). The model router and settings accessor are returned for the
// features (and tests) that use them in-process.
import { runResumes, type ResumedKind } from './runs/resume.ts';
import { resourceSecrets } from './tools/secrets.ts';
import { jsonBody } from './body.ts';
import express, { type Router } from 'express';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { errorShape } from '../errors.ts';
import { requireIdentity } from './auth.ts';
import { agentRoutes } from './agents/routes.ts';
import { agentRunner } from './agents/run.ts';
import { approvalDesk } from './agents/approvals.ts';
import { mcpTools } from './agents/mcp-client.ts';
import { workflowAgents } from './workflow-agents.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { sourceExtraction } from './sources/job.ts';
import { isolatedPool } from './runtime/extraction/pool.ts';
import { hostedEngines } from './sources/extract/hosted.ts';
import { sourceRoutes } from './sources/routes.ts';
import { urlImporter } from './sources/url-import.ts';
import { knowledgeIndexing } from './knowledge/job.ts';
import { metadataEnrichment } from './knowledge/enrichment.ts';
import { knowledgeBaseRoutes } from './knowledge/routes.ts';
import { knowledgeSearch } from './knowledge/search.ts';
import { embedder } from './knowledge/embedder.ts';
import { contextRetriever } from './context-handlers/retrieve.ts';
import { contextHandlerRoutes } from './context-handlers/routes.ts';
import { crawlProvider } from './sources/crawl-provider.ts';
import { copilotChat } from './copilot/chat.ts';
import { copilotRoutes } from './copilot/routes.ts';
import { copilotTools } from './copilot/tools.ts';
import type { Relation } from '../rest/catalogue.ts';
import { compactor } from './sessions/compaction.ts';
import { sessionRuns } from './runs/session-run.ts';
import { runWatch } from './runs/watch.ts';
import { runEventLog } from './runs/events.ts';
import { recordedRun } from './runs/recorded.ts';
import { toolRunner, type ToolRunner } from './tools/runner.ts';
import { guardedFetch, guardedStreamingFetch, privateNetworkRule } from './runtime/net/ssrf.ts';
import { aiCalls } from './calls.ts';
import { configRoutes } from './config/routes.ts';
import { aiShape } from './errors.ts';
import { orchestrationRoutes } from './orchestrations/routes.ts';
import { orchestrationRunner } from './orchestrations/run.ts';
import { openAiRoutes } from './openai-compat/routes.ts';
import { attachmentStore } from './agents/attachments.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { runLimiter } from './runs/limiter.ts';
import { extractionStops } from './sources/stops.ts';
import { mcpStore } from './mcp/store.ts';
import { keySource, providerKeyRoutes, storedKey } from './providers/keys.ts';
import { keptKeys } from './providers/key-cache.ts';
import { modelRouter, type ModelRouter } from './providers/router.ts';
import { settingsAccessor, type Settings } from './settings/accessor.ts';
import { settingsRoutes } from './settings/routes.ts';
import { toolRoutes } from './tools/routes.ts';
import { usageLedger } from './usage/ledger.ts';
import { usageRoutes } from './usage/routes.ts';
import { workflowRoutes } from './workflows/routes/index.ts';
import { workflowRuns } from './workflows/runs.ts';
import { workflowWakes } from './workflows/wakes.ts';
import { sandboxPool } from './runtime/sandbox/index.ts';
import { webhookOpenRoute, webhookRoutes } from './workflows/webhooks.ts';
import type { OpenRoute } from '../gateway.ts';
import type { InProcessRest } from '../rest/in-process.ts';
import type { InProcessStorage } from '../storage/in-process.ts';
import type { RequestContext } from '../../db/as-role.ts';
import type { RunLifetime } from './runs/lifetime.ts';
import type { StoredRun } from './runs/session-run.ts';
import type { Emit } from './steps/events.ts';

/** An attempt of a job: graphile-worker's count and its most (a job fails for good on its last). */
export type Attempt = { n: number; max: number };

/** The work behind the AI surface's jobs (worker/tasks/ai.ts parses each payload, then calls one of these). */
export type AiJobs = {
  /** An async (or webhook) workflow run, queued by ai.queue_execution. */
  runWorkflow: (executionId: string) => Promise<void>;
  /** A workflow run whose process died, carried on from the blocks it had settled (ai.resume_abandoned_executions). */
  resumeWorkflow: (executionId: string) => Promise<void>;
  /** An agent or orchestration run whose process died (or that parked on an approval), carried on from its checkpoints. */
  resumeRun: (kind: ResumedKind, runId: string, how?: { begin?: boolean }) => Promise<void>;
  extractSource: (payload: { source_id: string; run: number }, attempt: Attempt) => Promise<void>;
  indexSource: (payload: { indexed_source_id: string; run: number }, attempt: Attempt) => Promise<void>;
  buildBm25: (payload: { knowledge_base_id: string }) => Promise<void>;
  enrichGraph: (payload: { knowledge_base_id: string; indexed_source_id: string | null; retry_failed: boolean }) => Promise<void>;
  enrichMetadata: (payload: { knowledge_base_id: string; run: number; incremental: boolean; retry_failed: boolean }, attempt: Attempt) => Promise<void>;
};

export type AiSurface = {
  router: Router;
  /** /api/v1: the OpenAI-compatible endpoint (a surface of its own: openAiShape, bearer as key). */
  openai: Router;
  /** /api/mcp: the MCP server (a surface of its own, bearer as key). */
  mcp: Router;
  open: OpenRoute[];
  models: ModelRouter;
  /** Agent tool calls (builtin and custom), for agent runs and their tests. */
  tools: ToolRunner;
  settings: Settings;
  /** What the AI surface's jobs run (worker/tasks/ai.ts). */
  jobs: AiJobs;
  /** The server begins to stop: runs that can resume are handed over (left running for another process), the rest end. */
  handOver: () => Promise<void>;
  stop: () => Promise<void>;
};

export function aiSurface(opts: { config: Config; requestPool: pg.Pool; adminPool: pg.Pool; adminUrl: string; masterKey: string; runnerId: string; rest: InProcessRest; storage: InProcessStorage; schema: { relationsIn: (schema: string) => Relation[] }; log: Logger }): AiSurface {
  const { config, requestPool, adminPool, masterKey } = opts;
  const log = opts.log.child({ component: 'ai' });
  const calls = aiCalls(requestPool);
  const json = jsonBody({ limit: '5mb' });
  const identity = requireIdentity({ anonymousUsers: config.AI_ANONYMOUS_USERS });
  const router = express.Router();
  // A router whose routes answer in two shapes parses JSON itself, after each route declares its shape.
  const mount = (path: string, routes: Router, opts: { json: boolean } = { json: true }) =>
    router.use(path, errorShape(aiShape), identity, ...(opts.json ? [json] : []), routes);

  mount('/settings', settingsRoutes(calls, masterKey));
  // Keys the router decrypted, kept until any replica changes them (providers/key-cache.ts).
  const keyCache = keptKeys(storedKey(adminPool, masterKey), { adminUrl: opts.adminUrl, log });
  mount('/ai-provider-keys', providerKeyRoutes(calls, config, masterKey, keyCache.forget));
  // Headers inside tools and hooks: encrypted at rest, masked to all but the service role (sql/0056).
  const secrets = resourceSecrets(calls, masterKey);
  mount('/usage', usageRoutes(calls));
  mount('/config', configRoutes(calls));
  const ledger = usageLedger(adminPool, config.AI_BILLING, log);
  const models = modelRouter({ config, keys: keySource(keyCache.read, config), ledger, log });
  const settings = settingsAccessor(adminPool, masterKey);
  const sandbox = sandboxPool(config.SANDBOX_WORKERS);
  const outbound = {
    sandbox: { pool: sandbox, timeoutMs: config.SANDBOX_TIMEOUT_MS, memoryMb: config.SANDBOX_MEMORY_MB },
    fetch: guardedFetch(privateNetworkRule(config.HTTP_ALLOW_PRIVATE_NETWORKS)),
  };
  const tools = toolRunner({
    ...outbound, rest: opts.rest, storage: opts.storage, settings, searchBase: config.SEARCH_API_BASE, crawlBaseDefault: config.CRAWL_API_BASE_DEFAULT,
    images: { models, fetch: guardedStreamingFetch(privateNetworkRule(config.HTTP_ALLOW_PRIVATE_NETWORKS)) },
  });
  mount('/tools', toolRoutes(calls, secrets, tools));
  // Runs held past their client (awaiting approval) end when the server stops.
  const stopping = new AbortController();
  const approvals = approvalDesk(calls, { runnerId: opts.runnerId, afterMs: config.AI_APPROVAL_PARK_AFTER_MS });
  // Agents' own MCP servers (the client side; /api/mcp below is our server).
  const mcpClients = mcpTools({ calls, masterKey, settings, fetch: guardedStreamingFetch(privateNetworkRule(config.HTTP_ALLOW_PRIVATE_NETWORKS)) });
  const compaction = compactor({ calls, models, settings });
  const indexing = knowledgeIndexing({ calls, storage: opts.storage, models, settings, log });
  const enrich = metadataEnrichment({ calls, storage: opts.storage, models, settings, log });
  const search = knowledgeSearch({ calls, models, settings, embed: embedder(models, settings), storage: opts.storage });
  mount('/knowledge-bases', knowledgeBaseRoutes(calls, search));
  const retrieveContext = contextRetriever({ search, settings });
  mount('/context-handlers', contextHandlerRoutes(calls, retrieveContext));
  // Runs' events kept and numbered, and their cancels, across replicas (runs/).
  const watch = runWatch({ calls, adminUrl: opts.adminUrl, log });
  // Every new run draws from it, whichever way it starts (runs/limiter.ts).
  const limiter = runLimiter({ manual: config.WORKFLOW_EXECUTIONS_PER_MINUTE, triggered: config.WORKFLOW_TRIGGERED_RUNS_PER_MINUTE, agent: config.AGENT_RUNS_PER_MINUTE });
  const runServices = { log: runEventLog(calls, log, opts.runnerId), watch, stop: stopping.signal, inWorker: config.AI_RUN_PLACEMENT === 'worker', limiter };
  const sessionRun = sessionRuns({ calls, compactor: compaction, runnerId: opts.runnerId, watch });
  const attachments = attachmentStore(calls, opts.storage);
  const agentRuns = agentRunner({ calls, models, tools, mcp: mcpClients, settings, approvals, sessionRun, hookServices: outbound, retrieve: retrieveContext, secrets, attachments });
  mount('/agents', agentRoutes(calls, masterKey, agentRuns, approvals, runServices, mcpClients));
  const orchestrationRuns = orchestrationRunner({ calls, models, settings, agents: agentRuns, sessionRun });
  mount('/orchestrations', orchestrationRoutes(calls, secrets, orchestrationRuns, runServices));
  mount('/sessions', sessionRoutes(calls, attachments));
  const streamingFetch = guardedStreamingFetch(privateNetworkRule(config.HTTP_ALLOW_PRIVATE_NETWORKS));
  mount('/sources', sourceRoutes({ calls, storage: opts.storage, uploadLimit: config.STORAGE_UPLOAD_LIMIT, urls: urlImporter({ settings, fetch: streamingFetch, maxBytes: config.STORAGE_UPLOAD_LIMIT, provider: crawlProvider(settings, config.CRAWL_API_BASE_DEFAULT) }) }), { json: false });
  // Documents are parsed in threads with heap and time limits (the parsers load there, not here).
  const parsers = isolatedPool(new URL('./sources/extract/thread.ts', import.meta.url), {
    heapMb: config.EXTRACTION_MAX_HEAP_MB, runMs: config.EXTRACTION_TIMEOUT_MS, quietMs: config.EXTRACTION_PAGE_TIMEOUT_MS, threads: config.EXTRACTION_WORKERS, idleMs: 60_000,
  });
  const stops = extractionStops({ calls, adminUrl: opts.adminUrl, log });
  const extractSource = sourceExtraction({ calls, storage: opts.storage, models, settings, hosted: hostedEngines(config), parsers, stops, busySecondsPerMb: config.EXTRACTION_BUSY_SECONDS_PER_MB, log });
  const copilot = copilotChat({ calls, models, settings, secrets, tools: copilotTools({ calls, settings, schema: opts.schema }) });
  mount('/copilot', copilotRoutes(calls, copilot, settings, stopping.signal));
  // How each kind of run carries on after a crash or a park: its owner read afresh, then its own loop (runs/resume.ts).
  const carriers = {
    agent: async (who: RequestContext, agentId: string) => {
      // The agent with the setup its run needs, in one read (as a route reads it).
      const found = await agentRuns.forRun(who, agentId).catch(() => undefined);
      return found && ((stored: StoredRun, life: RunLifetime, emit: Emit) => agentRuns.resume(who, found.agent, stored, life, emit, found.setup));
    },
    orchestration: async (who: RequestContext, teamId: string) => {
      const team = await orchestrationRuns.orchestration(who, teamId).catch(() => undefined);
      return team && ((stored: StoredRun, life: RunLifetime, emit: Emit) => orchestrationRuns.resume(who, team, stored, life, emit));
    },
  };
  const resumeRun = runResumes({ calls, carriers, events: runServices.log, runnerId: opts.runnerId, stop: stopping.signal, log });
  const inWorkflow = workflowAgents({ calls, models, settings, tools, agents: agentRuns, orchestrations: orchestrationRuns, limiter, stop: stopping.signal, runnerId: opts.runnerId, events: runServices.log, resumes: resumeRun });
  // A parked workflow run due soon is taken up by a timer, to the second (the job's poll is the fallback: workflows/wakes.ts).
  const wakes = workflowWakes({ calls, stop: stopping.signal, log, resume: (id) => resumeWorkflow(id) });
  const runs = workflowRuns({ calls, config, models, settings, runnerId: opts.runnerId, sandbox, rest: opts.rest, storage: opts.storage, agents: inWorkflow, watch, limiter, stop: stopping.signal, wake: wakes.wake });
  const resumeWorkflow = async (id: string) => {
    // A worker of a server that is stopping takes no run: the job fails and is tried again by a live one.
    if (stopping.signal.aborted) throw new Error('The server is stopping; another worker resumes this run');
    await recordedRun(runServices.log, 'workflow', (emit) => runs.resume(id, stopping.signal, emit), undefined, { runId: id, lingerMs: 0 });
  };
  // OpenAI's chat completions API over agents and orchestrations: its own surface (/api/v1, OpenAI's error body, a bearer alone as the key).
  const openai = express.Router();
  // Images and files ride in the body as data URLs: at most 20 MB of them (agents/attachments.ts), base64 a third larger.
  openai.use(identity, jsonBody({ limit: '32mb' }), openAiRoutes({ calls, agents: agentRuns, orchestrations: orchestrationRuns, limiter, stop: stopping.signal, events: runServices, resumes: resumeRun, runnerId: opts.runnerId, attachments, fetch: streamingFetch }));
  mount('/workflows', workflowRoutes({ calls, json, runs, events: runServices }), { json: false });
  // MCP (/api/mcp): deployed workflows, agents and searches as tools; its own surface (bearer as key).
  const mcpServer = mcpRoutes({ services: { store: mcpStore(calls), agents: agentRuns, runs, search, storage: opts.storage, limiter, events: runServices, calls }, adminUrl: opts.adminUrl, log,
    limits: { perCaller: config.MCP_SESSIONS_PER_CALLER, max: config.MCP_SESSIONS_MAX, idleMs: config.MCP_SESSION_IDLE_SECONDS * 1000 },
    origins: [new URL(config.SITE_URL).origin, new URL(config.apiUrl).origin, ...config.MCP_ALLOWED_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean)] });
  const mcpSurface = express.Router();
  mcpSurface.use(identity, json, mcpServer.router);
  // The one route without project credentials: its webhook secret decides.
  router.use('/webhooks', webhookRoutes(runs, runServices));
  // Runs a dead process left running, now and every AI_RUN_SWEEP_INTERVAL_MS: handed to a worker to
  // resume (runs/resume.ts, workflows/resumed.ts); what cannot resume (three resumes, no caller) is failed.
  const sweep = () => void (async () => {
    await calls.asService('select ai.resume_abandoned_agent_runs(), ai.resume_abandoned_executions()', []);
    await calls.asService('select ai.fail_abandoned_runs(), ai.fail_abandoned_agent_runs()', []);
    // Waits due before the next sweep, on whichever server: timed here too (a restart loses no second).
    await wakes.timeDue(config.AI_RUN_SWEEP_INTERVAL_MS * 2);
  })().catch((err: Error) => log.warn({ error: err.message }, 'abandoned runs not swept'));
  sweep();
  // Headers stored before they were sealed (an upgrade): sealed now; only this process holds the key.
  void secrets.sealAll().catch((err: Error) => log.warn({ error: err.message }, 'stored headers not sealed'));
  const sweeper = setInterval(sweep, config.AI_RUN_SWEEP_INTERVAL_MS);
  sweeper.unref();
  return {
    router, openai, mcp: mcpSurface, open: [webhookOpenRoute], models, settings, tools,
    jobs: {
      // An async run's events are kept too: a client follows GET …/executions/{id}/events.
      runWorkflow: (id) => recordedRun(runServices.log, 'workflow', (emit) => runs.runQueued(id, stopping.signal, emit)),
      resumeWorkflow,
      resumeRun: resumeRun,
      extractSource,
      indexSource: indexing.index,
      buildBm25: indexing.buildBm25,
      enrichGraph: indexing.enrichGraph,
      enrichMetadata: enrich,
    },
    handOver: async () => {
      clearInterval(sweeper);
      wakes.stop();
      stopping.abort(new Error('The server is stopping'));
    },
    stop: async () => {
      clearInterval(sweeper);
      wakes.stop();
      stopping.abort(new Error('The server is stopping'));
      await mcpServer.close();
      limiter.close();
      await watch.stop();
      await keyCache.stop();
      await stops.stop();
      await parsers.close();
      await sandbox.close();
    },
  };
}
