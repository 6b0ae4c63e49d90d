// The floor any Node server can reach: node:http + pg, one query per request,
// no framework, no transaction, no role switch. Usage: node bench/bare-server.ts <port> <database url>
import http from 'node:http';
import pg from 'pg';

const [port, url] = process.argv.slice(2) as [string, string];
const pool = new pg.Pool({ connectionString: url, max: 16 });
const OWNER = '00000000-0000-4000-8000-000000000001';
http
  .createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    let q: Promise<pg.QueryResult>;
    if (req.method === 'POST') {
      q = pool.query({ name: 'ins', text: `insert into public.items (owner, name, qty) values ($1, 'x', 1) returning *`, values: [OWNER] });
    } else if (u.pathname === '/page') {
      q = pool.query({ name: 'page', text: 'select * from public.items where owner = $1 limit 10', values: [OWNER] });
    } else {
      q = pool.query({ name: 'one', text: 'select * from public.items where id = $1', values: [u.searchParams.get('id') ?? '1'] });
    }
    const drain = () => q.then((r) => res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(r.rows)));
    if (req.method === 'POST') {
      req.resume();
      req.on('end', () => void drain());
    } else void drain();
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
