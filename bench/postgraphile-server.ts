// PostGraphile 5 alone (no gateway, no framework), for bench:rest's comparison.
// Usage: node bench/postgraphile-server.ts <port> <database url>
import http from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const [port, url] = process.argv.slice(2) as [string, string];
const pgl = postgraphile({
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: url, schemas: ['public'], poolConfig: { max: 16 } })],
  grafserv: { graphqlPath: '/graphql', graphiql: false },
});
const serv = pgl.createServ(grafserv);
await pgl.getSchema();
const server = http.createServer();
await serv.addTo(server);
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
