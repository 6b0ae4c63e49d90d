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
import { postgraphile, type PostGraphileInstance } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { defaultMaskError } from 'postgraphile/grafserv';
import { grafserv } from 'postgraphile/grafserv/express/v4';
import { GraphQLError } from 'postgraphile/graphql';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

export type GraphQLSurface = { handler: RequestHandler; release: () => Promise<void>; schemaReady: () => Promise<void>; reload: () => Promise<void> };

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: Error) => void) => void;
type Instance = { pgl: PostGraphileInstance; serv: { release: () => unknown }; handle: Handle };

export function graphqlSurface(opts: { pool: pg.Pool; schemas: string[]; graphiql: boolean }): GraphQLSurface {
  const build = (): Instance => {
    const pgl = postgraphile(presetFor(opts));
    const serv = pgl.createServ(grafserv);
    // The schema is built eagerly; a failure (database not reachable yet) is
    // answered per request by grafserv, and must not surface as an unhandled rejection.
    Promise.resolve(pgl.getSchema()).catch(() => undefined);
    return { pgl, serv, handle: serv.createHandler() };
  };
  // Releasing the server releases its PostGraphile instance too.
  const release = async (i: Instance) => {
    await i.serv.release();
  };
  let current = build();
  // The platform's JSON parser first (its size and depth limits); grafserv's Express adapter reads req.body.
  const json = jsonBody({ limit: '1mb', type: ['application/json', 'application/graphql+json'] });
  return {
    handler: (req, res, next) => json(req, res, (err?: unknown) => (err ? next(err) : current.handle(req, res, next))),
    release: () => release(current),
    schemaReady: async () => {
      await current.pgl.getSchema();
    },
    // After DDL: build the new schema first, then swap; requests in flight finish on the old one.
    reload: async () => {
      const next = build();
      await next.pgl.getSchema();
      const previous = current;
      current = next;
      setTimeout(() => void release(previous).catch(() => undefined), 30_000).unref();
    },
  };
}

function presetFor(opts: { pool: pg.Pool; schemas: string[]; graphiql: boolean }): GraphileConfig.Preset {
  return {
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ pool: opts.pool, schemas: opts.schemas })],
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
          return new GraphQLError(cause.message ?? error.message, { nodes: error.nodes ?? null, positions: error.positions ?? null, path: error.path ?? null, extensions: { code: cause.code } });
        }
        return defaultMaskError(error);
      },
    },
  };
}
