// /api/platform/auth/{ref}/oauth-clients: the OAuth server's clients
// (sql/0114) for the Studio's OAuth apps page, through the same SQL as
// GoTrue's admin API (/auth/v1/admin/oauth/clients) and with its checks
// (server/auth/oauth-clients.ts). A confidential client's secret is answered
// once, when it is made or regenerated. Each change goes to the audit log.
//   GET    /oauth-clients                         newest first
//   POST   /oauth-clients                         {client_name, redirect_uris, token_endpoint_auth_method?}
//   POST   /oauth-clients/{id}/regenerate-secret  a confidential client's new secret
//   DELETE /oauth-clients/{id}                    its sessions, consents and pending requests go with it
import express, { type Router } from 'express';
import type pg from 'pg';
import { route } from '../errors.ts';
import { ClientRegistration, registrationFields } from '../auth/oauth-clients.ts';
import { audit } from './audit.ts';
import { idParam, parseBody } from './parse.ts';

export function oauthClientRoutes(opts: { pool: pg.Pool }): Router {
  const { pool } = opts;
  const r = express.Router({ mergeParams: true });

  r.get('/oauth-clients', route(async (_req, res) => {
    const { rows: [list] } = await pool.query<{ clients: unknown }>('select auth.oauth_client_list() as clients');
    res.json(list!.clients);
  }));

  r.post('/oauth-clients', route(async (req, res) => {
    const body = parseBody(ClientRegistration, req.body);
    const { rows: [made] } = await pool.query<{ client: { client_id: string; client_name?: string } }>('select auth.oauth_register_client($1, $2) as client', [registrationFields(body), 'manual']);
    await audit(pool, req, req.operator!, 'create_oauth_client', made!.client.client_name ?? null, { id: made!.client.client_id });
    res.status(201).json(made!.client);
  }));

  r.post('/oauth-clients/:id/regenerate-secret', route(async (req, res) => {
    const id = idParam(req.params.id, 'OAuth client');
    const { rows: [made] } = await pool.query<{ client: { client_name?: string } }>('select auth.oauth_regenerate_client_secret($1) as client', [id]);
    await audit(pool, req, req.operator!, 'regenerate_oauth_client_secret', made!.client.client_name ?? null, { id });
    res.json(made!.client);
  }));

  r.delete('/oauth-clients/:id', route(async (req, res) => {
    const id = idParam(req.params.id, 'OAuth client');
    await pool.query('select auth.oauth_delete_client($1)', [id]);
    await audit(pool, req, req.operator!, 'delete_oauth_client', null, { id });
    res.json({ id });
  }));
  return r;
}
