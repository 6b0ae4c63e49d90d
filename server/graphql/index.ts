// /graphql/v1: PostGraphile 5 over the exposed schemas. The caller's role and
// claims (from the key gate) become PostGraphile's pgSettings, which it sets
// with set_config(..., true) in each transaction, exactly as the REST layer
// does: grants and row-level security decide. GraphiQL (Ruru) is served at
// /graphql/v1/graphiql outside production.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { jsonBody } from '../json-body.ts';
import type pg from 'pg';
import { requestSettings } from '../../db/as-role.ts';
import './graphile-env.ts';
import type { PostGraphileInstance } from 'postgraphile';

export type GraphQLSurface = { handler: RequestHandler; release: () => Promise<void>; reload: () => Promise<void> };

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: Error) => void) => void;
type Instance = { pgl: PostGraphileInstance; serv: { release: () => unknown }; handle: Handle };

/** PostGraphile's modules, loaded with the first GraphQL request. */
async function library() {
  const [{ postgraphile }, { makePgService }, { defaultMaskError }, { grafserv }, { GraphQLError }, { PostGraphileAmberPreset }] = await Promise.all([
    import('postgraphile'), import('postgraphile/adaptors/pg'), import('postgraphile/grafserv'), import('postgraphile/grafserv/express/v4'),
    import('postgraphile/graphql'), import('postgraphile/presets/amber'),
  ]);
  return { postgraphile, makePgService, defaultMaskError, grafserv, GraphQLError, PostGraphileAmberPreset };
}
type Library = Awaited<ReturnType<typeof library>>;

/**
 * The schema is built with the first GraphQL request, not at start: a
 * server whose clients never ask for GraphQL never holds PostGraphile, its
 * introspection of the database or its schema (tens of MB at rest).
 */
export function graphqlSurface(opts: { pool: pg.Pool; schemas: string[]; graphiql: boolean }): GraphQLSurface {
  let lib: Promise<Library> | undefined;
  const build = async (): Promise<Instance> => {
    const l = await (lib ??= library());
    const pgl = l.postgraphile(presetFor(l, opts));
    const serv = pgl.createServ(l.grafserv);
    // A failure to build (the database not reachable) is answered per request
    // by grafserv, and must not surface as an unhandled rejection.
    Promise.resolve(pgl.getSchema()).catch(() => undefined);
    return { pgl, serv, handle: serv.createHandler() };
  };
  // Releasing the server releases its PostGraphile instance too.
  const release = async (i: Instance) => {
    await i.serv.release();
  };
  let current: Promise<Instance> | undefined;
  // The platform's JSON parser first (its size and depth limits); grafserv's Express adapter reads req.body.
  const json = jsonBody({ limit: '1mb', type: ['application/json', 'application/graphql+json'] });
  return {
    handler: (req, res, next) => json(req, res, (err?: unknown) => {
      if (err) return next(err);
      (current ??= build()).then((i) => i.handle(req, res, next), next);
    }),
    release: async () => {
      if (current) await release(await current);
    },
    // After DDL: build the new schema first, then swap; requests in flight finish on the old one.
    // Nothing built yet: the first request builds from the database as it is then.
    reload: async () => {
      if (!current) return;
      const next = await build();
      await next.pgl.getSchema();
      const previous = current;
      current = Promise.resolve(next);
      setTimeout(() => void previous.then(release).catch(() => undefined), 30_000).unref();
    },
  };
}

function presetFor(l: Library, opts: { pool: pg.Pool; schemas: string[]; graphiql: boolean }): GraphileConfig.Preset {
  return {
    extends: [l.PostGraphileAmberPreset],
    pgServices: [l.makePgService({ pool: opts.pool, schemas: opts.schemas })],
    grafast: {
      context(requestContext) {
        const req = requestContext.node?.req as (IncomingMessage & Pick<Request, 'auth'>) | undefined;
        const auth = req?.auth;
        return {
          // As every request path sets them (db/as-role.ts): role, claims, the per-role statement_timeout, the sub claim.
          pgSettings: requestSettings(auth ? { role: auth.role, claims: auth.claims, method: req?.method ?? 'POST', path: '/graphql/v1' } : { role: 'anon', claims: {} }),
        };
      },
    },
    grafserv: {
      graphqlPath: '/',
      graphiql: opts.graphiql,
      graphiqlPath: '/graphiql',
      graphiqlOnGraphQLGET: false,
      // Errors the caller caused (bad data, constraints, privileges and row-level
      // security, raised exceptions) are shown with their SQLSTATE, as REST shows
      // them; anything else stays masked and logged by PostGraphile.
      maskError(error) {
        const cause = error.originalError as { code?: unknown; message?: string } | undefined;
        if (cause && typeof cause.code === 'string' && /^(22|23|42|P0|PT)/.test(cause.code)) {
          return new l.GraphQLError(cause.message ?? error.message, { nodes: error.nodes ?? null, positions: error.positions ?? null, path: error.path ?? null, extensions: { code: cause.code } });
        }
        return l.defaultMaskError(error);
      },
    },
  };
}
