// The peer bench/runs.ts measures pgbase's durable runs against: the same
// one-model-call run through LangGraph.js with its Postgres checkpointer
// (@langchain/langgraph-checkpoint-postgres), behind a bare HTTP server in a
// process of its own, as pgbase's runs are behind theirs. Each POST is one
// run on a new thread: a graph of one node that calls the model (ChatOpenAI
// pointed at the bench's vendor), checkpointed by PostgresSaver on the same
// PostgreSQL cluster (a database of its own). Usage:
//   node bench/langgraph-server.ts '{"databaseUrl", "baseURL", "apiKey", "model"}'
// Prints {"port"} once it listens.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ChatOpenAI } from '@langchain/openai';

const spec = JSON.parse(process.argv[2]!) as { databaseUrl: string; baseURL: string; apiKey: string; model: string };
const saver = PostgresSaver.fromConnString(spec.databaseUrl);
await saver.setup();
const model = new ChatOpenAI({ model: spec.model, apiKey: spec.apiKey, configuration: { baseURL: spec.baseURL }, maxRetries: 0 });
const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge(START, 'model')
  .addEdge('model', END)
  .compile({ checkpointer: saver });

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    void (async () => {
      const { message } = JSON.parse(body) as { message: string };
      const thread = randomUUID();
      const out = await graph.invoke({ messages: [{ role: 'user', content: message }] }, { configurable: { thread_id: thread } });
      const last = out.messages.at(-1)!;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ thread_id: thread, output: last.content }));
    })().catch((err: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err.message })));
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.on('SIGTERM', () => {
  server.close();
  void saver.end().finally(() => process.exit(0));
});
