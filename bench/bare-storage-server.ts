// The floor for `npm run bench:storage`: a bare node:http server that streams a
// request body to a file and a file to a response, on the same disk as the
// platform's DATA_DIR, with nothing else (no keys, no database, no hashing).
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [port, dir] = [Number(process.argv[2]), process.argv[3]!];
mkdirSync(dir, { recursive: true });
const server = http.createServer((req, res) => {
  const file = path.join(dir, encodeURIComponent(req.url ?? '/'));
  if (req.method === 'PUT') {
    pipeline(req, createWriteStream(file)).then(() => res.end('{}'), () => res.writeHead(500).end());
  } else {
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log('ready'));
