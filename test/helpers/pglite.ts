// A PostgreSQL with pgvector, which no package installs on these machines:
// PGlite (PostgreSQL 18 compiled to WebAssembly) with its pgvector build,
// served over the wire protocol by pglite-socket on 127.0.0.1, so pg, our
// migrations and our SQL calls reach it as they reach any server. One backend
// behind the socket: connections share its session settings.
import { PGlite } from '@electric-sql/pglite';
import { auto_explain } from '@electric-sql/pglite/contrib/auto_explain';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { uuid_ossp } from '@electric-sql/pglite/contrib/uuid_ossp';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export async function startPgvectorDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  const db = await PGlite.create({ extensions: { vector, pgcrypto, uuid_ossp, auto_explain } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Run as a superuser: from then on every statement's plan, nested ones included, reaches the client as a notice. */
export const PLANS_AS_NOTICES = `load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
  set auto_explain.log_level = notice; set auto_explain.log_parameter_max_length = 0`;
