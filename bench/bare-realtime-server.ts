// The floor for realtime fan-out: a bare `ws` server that forwards every text
// frame it receives, unchanged and encoded once, to every other client.
// `node bench/bare-realtime-server.ts <port>`.
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.argv[2] ?? 0);
const wss = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false });
const clients = new Set<WebSocket>();
wss.on('connection', (ws) => {
  clients.add(ws);
  ws.on('close', () => clients.delete(ws));
  ws.on('message', (data, isBinary) => {
    const frame = data as Buffer;
    for (const other of clients) if (other !== ws) other.send(frame, { binary: isBinary });
  });
});
wss.on('listening', () => console.log(`bare realtime server listening on ${port}`));
