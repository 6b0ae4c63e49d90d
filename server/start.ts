// Boot and shutdown of one platform process:
//   config -> keys -> database (URL or embedded) -> migrations -> pools ->
//   worker -> HTTP (project API and control plane)
// and the reverse on stop: refuse new work, drain HTTP, stop the worker, close
// the pools, stop the embedded database last.
import { configureStatementLimits, loadRoleTimeouts } from '../db/statement-limits.ts';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TaskList } from 'graphile-worker';
import pg from 'pg';
import { openDatabase, type DatabaseTarget } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createPool } from '../db/pool.ts';
import { installWorkerSchema, startWorker, type WorkerHandle } from '../worker/index.ts';
import { createApp, type Surface } from './app.ts';
import { mcpResourceMetadataUrl, wellKnownRoutes } from './well-known.ts';
import { vaultKey } from './vault-key.ts';
import { authRoutes } from './auth/routes.ts';
import express from 'express';
import { databaseProxyRoutes } from './database-proxy/routes.ts';
import { graphqlSurface } from './graphql/index.ts';
import { restRoutes } from './rest/routes.ts';
import { pgLocker } from './storage/resumable-lock.ts';
import { storageRoutes } from './storage/routes.ts';
import { aiSurface, type AiSurface } from './ai/index.ts';
import { openAiShape } from './ai/openai-compat/wire.ts';
import { mcpShapeWith } from './ai/mcp/errors.ts';
import { authShape } from './auth/errors.ts';
import { plainShape } from './errors.ts';
import { graphqlShape } from './graphql/errors.ts';
import { realtimeShape } from './realtime/errors.ts';
import { restShape } from './rest/errors.ts';
import { inProcessRest } from './rest/in-process.ts';
import { storageShape } from './storage/errors.ts';
import { openStorageStores } from './storage/stores.ts';
import { realtimeService, type RealtimeService } from './realtime/index.ts';
import { SchemaCache } from './rest/schema-cache.ts';
import { RestConfig } from './rest/settings.ts';
import type { Config } from './config.ts';
import type { HealthState } from './health.ts';
import { loadLocalSecrets, needsLocalSecrets, resolveKeys, type Keys, type LocalSecrets } from './keys.ts';
import { initializeSigningKeys, keyRing } from './key-ring.ts';
import { apiKeyRing } from './api-keys.ts';
import { createLogger, type Logger } from './log.ts';
import { createPlatformApp } from './platform.ts';
import { controlPlane, STUDIO_DIST } from './studio/index.ts';
import { consentOpen, consentPage } from './studio/consent-page.ts';
import { announceStudio } from './studio/announce.ts';
import type { EmbeddedPostgres } from '../db/embedded.ts';
import { mountedRoutes, type MountedRoute } from './openapi/mounted.ts';
import { enableAuthenticator, existingAuthenticator } from './authenticator.ts';
import { setMaxSeries, watchPool } from './telemetry/metrics.ts';
import { createMetricsApp } from './metrics-app.ts';
import { metricsHandler } from './telemetry/routes.ts';
import { flushTracing, startTracing } from './telemetry/tracing.ts';
import { drain, listen } from './serving.ts';
import { openApiOpenRoute, openApiRoutes } from './openapi/routes.ts';

export type Platform = {
  config: Config;
  keys: Keys;
  log: Logger;
  /** Actual addresses (ports resolved when configured as 0). */
  url: string;
  platformUrl: string;
  /** The Studio's one-time setup link, when this start made one (no operator yet). */
  setupUrl: string | null;
  adminUrl: string;
  adminPool: pg.Pool;
  requestPool: pg.Pool;
  embedded: EmbeddedPostgres | undefined;
  /** The AI surface's in-process services: the model router and the settings accessor. */
  ai: Pick<AiSurface, 'models' | 'settings' | 'tools'>;
  worker: WorkerHandle | undefined;
  realtime: RealtimeService;
  health: HealthState;
  /** The routes mounted under a surface prefix (and the prefixes inside it), as its routers answer them. */
  routesUnder: (prefix: string) => MountedRoute[];
  /** Things to close during shutdown after HTTP has drained (WebSocket servers, ...). */
  onShutdown: (hook: () => Promise<void>) => void;
  stop: () => Promise<void>;
};

/**
 * surfaces: extra surfaces (tests mount probes this way); the platform's own are always mounted.
 * serve: false builds everything but opens no port: a standalone worker
 * (`npm run worker`) then runs every job, the AI surface's included, exactly
 * as a server's in-process worker does.
 */
export type StartOptions = { log?: Logger; surfaces?: Surface[]; extraTasks?: TaskList; serve?: boolean };

export async function startPlatform(config: Config, opts: StartOptions = {}): Promise<Platform> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const started = Date.now();
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err: Error) => log.warn({ error: err.message }, 'cleanup step failed'));
  };

  try {
    // Traces only when the standard OTEL_* variables ask (once per process); spans are sent before it exits.
    startTracing(process.env, log);
    setMaxSeries(config.METRICS_MAX_SERIES);
    cleanups.push(() => flushTracing());
    const { local, target } = await openConfiguredDatabase(config, log);
    const secrets = await resolveKeys(config, local);
    if (target.embedded) cleanups.push(() => target.embedded!.stop());

    const health: HealthState = { pool: undefined, migrated: false, worker: undefined, workerRequired: config.WORKER === 'in-process', draining: false };
    const result = await migrate(target.adminUrl, {
      userDir: config.migrationsDir,
      onApplied: (m) => log.info({ migration: `${m.source}/${m.name}`, ms: m.ms }, 'migration applied'),
    });
    health.migrated = true;
    configureStatementLimits({ fallback: config.DB_STATEMENT_TIMEOUT, job: config.JOB_STATEMENT_TIMEOUT });
    log.info({ applied: result.applied.length, alreadyApplied: result.skipped }, 'migrations up to date');

    // The admin pool serves the worker and the identity service (GoTrue's own login on Supabase).
    // Every session of pgbase's carries the Vault's key (sql/0118), never stored in the database.
    const sessionSettings = { 'pgbase.vault_key': vaultKey(config, secrets.aiMasterKey) };
    const adminPool = createPool({ connectionString: target.adminUrl, max: config.DB_POOL_MAX + config.WORKER_CONCURRENCY + 2, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS, name: 'admin', log, settings: sessionSettings });
    cleanups.push(() => adminPool.end());
    const unwatchAdmin = watchPool('admin', adminPool);
    cleanups.push(async () => unwatchAdmin());
    await installWorkerSchema(adminPool, log);
    // The project's signing keys (sql/0111): a new data directory starts with ES256 in use, a deployment
    // that had JWT_SECRET (set, or in a data directory made before) with it, until an operator rotates.
    await initializeSigningKeys(adminPool, secrets.aiMasterKey, config.JWT_SIGNING_ALGORITHM ?? (!config.JWT_SECRET && local?.created ? 'ES256' : 'HS256'));
    const ring = await keyRing({ adminPool, adminUrl: target.adminUrl, secret: secrets.jwtSecret, masterKey: secrets.aiMasterKey, log });
    cleanups.push(() => ring.stop());
    // Publishable and secret API keys (sql/0112): a project starts with one of each.
    await adminPool.query('select auth.initialize_api_keys($1)', [secrets.aiMasterKey]);
    const apiKeys = await apiKeyRing({ adminPool, adminUrl: target.adminUrl, log });
    cleanups.push(() => apiKeys.stop());
    const keys: Keys = {
      ...secrets, sign: ring.sign, jwks: ring.jwks, verify: apiKeys.verifier(ring.verify),
      reloadKeys: async () => void (await Promise.all([ring.reload(), apiKeys.reload()])),
    };
    // A server sets the authenticator's password from its JWT secret; a
    // standalone worker only logs in with it, so one given another secret
    // fails here, saying so, instead of locking the servers out.
    const requestUrl = config.DB_AUTHENTICATOR_URL ?? (opts.serve === false
      ? await existingAuthenticator(adminPool, target.adminUrl, keys.jwtSecret)
      : await enableAuthenticator(adminPool, target.adminUrl, keys.jwtSecret));
    const requestPool = createPool({ connectionString: requestUrl, max: config.DB_POOL_MAX, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS, name: 'request', log, settings: sessionSettings });
    cleanups.push(() => requestPool.end());
    const unwatchRequest = watchPool('request', requestPool);
    cleanups.push(async () => unwatchRequest());
    health.pool = requestPool;

    let worker: WorkerHandle | undefined;

    const shutdownHooks: Array<() => Promise<void>> = [];
    const auth = authRoutes({ config, keys, pool: adminPool });
    // PostgREST's settings: the environment, then the authenticator role's pgrst.* (sql/0106), reloaded with the schema's listener.
    const restConfig = new RestConfig({ config, pool: adminPool, log });
    await restConfig.load();
    const schemaCache = new SchemaCache({ pool: adminPool, url: target.adminUrl, schemas: restConfig.current.schemas, log, settings: restConfig });
    await schemaCache.load();
    await loadRoleTimeouts(adminPool);
    schemaCache.onReload(() => loadRoleTimeouts(adminPool).catch((err: Error) => log.warn({ error: err.message }, 'role statement timeouts not reloaded')));
    await schemaCache.listen();
    cleanups.push(() => schemaCache.stop());
    // The database proxy calls the REST layer of this same server, over loopback.
    let apiPort = 0;
    const loopbackHost = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const graphql = graphqlSurface({ pool: requestPool, schemas: config.REST_SCHEMAS.split(','), graphiql: process.env.NODE_ENV !== 'production' });
    cleanups.push(() => graphql.release());
    schemaCache.onReload(() => graphql.reload());
    const graphqlRouter = express.Router();
    graphqlRouter.use(graphql.handler);
    const stores = await openStorageStores(config);
    await stores.check();
    const resumableLocks = pgLocker({ connectionString: target.adminUrl, maxHeld: 32, log });
    cleanups.push(() => resumableLocks.close());
    const storage = storageRoutes({
      pool: requestPool, backend: stores.backend, jwtSecret: keys.jwtSecret, uploadLimit: config.STORAGE_UPLOAD_LIMIT,
      resumable: { store: stores.resumable, locker: resumableLocks, maxSize: config.STORAGE_RESUMABLE_LIMIT, expirySeconds: config.STORAGE_RESUMABLE_EXPIRY },
      images: {
        maxInputPixels: config.STORAGE_IMAGE_MAX_INPUT_PIXELS, maxDimension: config.STORAGE_IMAGE_MAX_DIMENSION,
        maxOutputBytes: config.STORAGE_IMAGE_MAX_OUTPUT_BYTES, cacheBytes: config.STORAGE_RENDER_CACHE_BYTES,
      },
      trustProxy: config.TRUST_PROXY !== 'false', log,
    });
    const realtime = await realtimeService({ config, adminUrl: target.adminUrl, adminPool, requestPool, verify: keys.verify, log });
    shutdownHooks.push(() => realtime.stop());
    cleanups.push(() => realtime.stop()); // a boot that fails later still closes the listener
    const ai = aiSurface({ config, requestPool, adminPool, adminUrl: target.adminUrl, masterKey: keys.aiMasterKey, runnerId: realtime.nodeId, rest: inProcessRest(requestPool, schemaCache, () => restConfig.current), storage: storage.inProcess, schema: schemaCache, log });
    cleanups.push(() => ai.stop());
    // As the server begins to stop (before HTTP drains), runs that can resume are handed over, not failed.
    shutdownHooks.push(() => ai.handOver());
    // The worker starts once every surface its jobs call is built (and stops before them).
    if (config.WORKER === 'in-process') {
      worker = await startWorker({ config, pool: adminPool, concurrency: config.WORKER_CONCURRENCY, log, ai: ai.jobs, nodeId: realtime.nodeId, ...(opts.extraTasks ? { extraTasks: opts.extraTasks } : {}) });
      health.worker = worker;
      cleanups.push(() => worker!.stop());
    } else if (config.AI_RUN_PLACEMENT === 'worker') {
      // Not an error (workers may run apart), but a run begun here waits until some process runs the worker.
      log.info('AI_RUN_PLACEMENT=worker with WORKER=off: agent, orchestration and workflow runs wait for a worker process (npm run worker)');
    }
    const surfaces: Surface[] = [
      { prefix: '/graphql/v1', router: graphqlRouter, errorShape: graphqlShape },
      { prefix: '/auth/v1', router: auth.router, open: auth.open, errorShape: authShape, bearerToRoutes: true },
      // The OAuth server's own consent page, built with the Studio (an app's replaces it: AUTH_OAUTH_SERVER_CONSENT_URL).
      ...(config.AUTH_OAUTH_SERVER_ENABLED && config.STUDIO ? [{ prefix: '/auth/v1', router: consentPage(path.resolve(STUDIO_DIST), keys), open: [consentOpen] }] : []),
      { prefix: '/rest/v1', router: restRoutes({ pool: requestPool, cache: schemaCache, publicUrl: config.apiUrl, settings: () => restConfig.current }), errorShape: restShape },
      { prefix: '/storage/v1', router: storage.router, open: storage.open, errorShape: storageShape },
      { prefix: '/realtime/v1', router: realtime.router, errorShape: realtimeShape },
      // The /api reference first: it needs no key (the gateway asks openApiOpenRoute).
      { prefix: '/api', router: openApiRoutes(), open: [openApiOpenRoute] },
      { prefix: '/api', router: databaseProxyRoutes({ restBase: () => `http://${loopbackHost.includes(':') ? `[${loopbackHost}]` : loopbackHost}:${apiPort}` }), errorShape: plainShape },
      { prefix: '/api/v1', router: ai.openai, errorShape: openAiShape, bearerKey: true },
      { prefix: '/api/mcp', router: ai.mcp, errorShape: mcpShapeWith(config.AUTH_OAUTH_SERVER_ENABLED ? mcpResourceMetadataUrl(config) : null), bearerKey: true },
      { prefix: '/api', router: ai.router, open: ai.open },
      ...(opts.surfaces ?? []),
    ];
    let url = config.apiUrl;
    let setupUrl: string | null = null;
    let platformUrl = config.platformUrl;
    if (opts.serve === false) {
      cleanups.push(() => Promise.all(shutdownHooks.map((hook) => hook())).then(() => undefined));
      // A worker apart has jobs and model calls of its own to count: its /metrics (and /health) on a port of its own, when asked.
      if (config.WORKER_METRICS_PORT !== undefined) {
        const metricsApp = createMetricsApp({ log, health, metrics: metricsHandler({ verify: keys.verify, adminPool, log }) });
        const server = await listen(metricsApp, config.WORKER_METRICS_PORT, config.HOST);
        cleanups.push(() => drain([server], config.SHUTDOWN_TIMEOUT_MS, []));
        log.info({ metrics_url: `http://${loopbackHost}:${(server.address() as AddressInfo).port}/metrics` }, 'worker metrics served');
      }
      log.info({ database: target.embedded ? 'embedded' : 'DATABASE_URL', ms: Date.now() - started }, 'pgbase worker is up (no ports)');
    } else {
      const api = await listen(createApp({ log, verify: keys.verify, health, surfaces, trustProxy: config.TRUST_PROXY, metrics: metricsHandler({ verify: keys.verify, adminPool, log }), wellKnown: wellKnownRoutes(config, keys) }), config.PORT, config.HOST);
      apiPort = (api.address() as AddressInfo).port;
      realtime.attach(api);
      const plane = controlPlane({
        config, keys, adminPool, adminUrl: target.adminUrl, storage: { service: storage.service, router: storage.router }, ai: ai.router,
        project: () => ({ ref: config.PROJECT_REF, api_url: url, anon_key: keys.anonKey, platform_url: platformUrl }),
        realtimeUrl: () => `ws://${loopbackHost.includes(':') ? `[${loopbackHost}]` : loopbackHost}:${apiPort}`,
      });
      const control = await listen(createPlatformApp({ log, health, api: plane.api, studio: plane.studio, trustProxy: config.TRUST_PROXY }), config.PLATFORM_PORT, config.HOST);
      control.on('upgrade', plane.realtime.upgrade);
      cleanups.push(() => drain([api, control], config.SHUTDOWN_TIMEOUT_MS, [...shutdownHooks, async () => plane.realtime.close()]));
      const portOf = (s: http.Server) => (s.address() as AddressInfo).port;
      if (config.PORT === 0) url = `http://localhost:${portOf(api)}`;
      if (config.PLATFORM_PORT === 0) platformUrl = `http://localhost:${portOf(control)}`;
      log.info({ url, platform_url: platformUrl, anon_key: keys.anonKey, database: target.embedded ? 'embedded' : 'DATABASE_URL', ms: Date.now() - started }, `pgbase is up at ${url}`);
      if (config.STUDIO) setupUrl = await announceStudio(adminPool, platformUrl, log);
    }

    let stopping: Promise<void> | undefined;
    return {
      config, keys, log, url, platformUrl, setupUrl, adminPool, requestPool, health, worker, realtime,
      adminUrl: target.adminUrl,
      embedded: target.embedded,
      ai: { models: ai.models, settings: ai.settings, tools: ai.tools },
      onShutdown: (hook) => shutdownHooks.push(hook),
      routesUnder: (prefix) => surfaces.filter((s) => s.prefix === prefix || s.prefix.startsWith(`${prefix}/`)).flatMap((s) => mountedRoutes(s.prefix, s.router ? [s.router] : [])),
      stop: () => {
        stopping ??= (async () => {
          log.info('shutting down');
          health.draining = true;
          await cleanup();
          log.info('shutdown complete');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The configured database (DATABASE_URL, or the embedded cluster started now)
 * and the local secrets it and the keys may need from DATA_DIR.
 */
export async function openConfiguredDatabase(config: Config, log: Logger): Promise<{ local: LocalSecrets | undefined; target: DatabaseTarget }> {
  const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
  const target = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    embeddedPort: config.EMBEDDED_DB_PORT,
    embeddedRootHome: path.resolve(config.EMBEDDED_DB_ROOT_HOME),
    embeddedPassword: () => local!.db_password,
    log,
  });
  return { local, target };
}
