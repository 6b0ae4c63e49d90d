// A small model vendor on 127.0.0.1 that speaks what the router and key
// validation speak, for all four vendors at once, each under its own path
// (the tests point OPENAI_BASE_URL and friends at them):
//   /openai/v1       GET /models (Bearer), POST /chat/completions, /embeddings
//   /anthropic/v1    GET /models (x-api-key + anthropic-version), OpenAI-compatible chat
//   /gemini/v1beta   GET /models (x-goog-api-key), /openai/chat/completions, /openai/embeddings
//   /openrouter/api/v1  GET /key (Bearer), POST /chat/completions
//   /rerank/v1       POST /rerank (Cohere/Jina shape): a document's score is the share of the query's words it holds
// Keys: GOOD_KEY is accepted, BAD_KEY refused (401), FLAKY_KEY answered 503.
// Chat answers come from a script a test queues (text, tool calls, errors,
// a hang); with nothing queued the model says "ok". Every request is kept.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const GOOD_KEY = 'sk-test-good-0123456789abcdef';
export const BAD_KEY = 'sk-test-bad-0123456789abcdef';
export const FLAKY_KEY = 'sk-test-flaky-0123456789abcdef';

export type Step =
  | { text: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { toolCalls: Array<{ id?: string; name: string; arguments: unknown /* a string is sent as is (raw, possibly broken JSON) */ }> }
  | { status: number; headers?: Record<string, string>; message?: string }
  | { hang: true };

export type Seen = { method: string; path: string; headers: http.IncomingHttpHeaders; body: any };

export type VendorServer = {
  url: string;
  env: Record<string, string>;
  /** Queues answers for the next chat calls (to any vendor), in order. */
  script: (...steps: Step[]) => void;
  requests: Seen[];
  chats: () => Seen[];
  reset: () => void;
  close: () => Promise<void>;
};

const PREFIXES = { openai: '/openai/v1', anthropic: '/anthropic/v1', gemini: '/gemini/v1beta', openrouter: '/openrouter/api/v1' } as const;

export async function startVendorServer(): Promise<VendorServer> {
  let queue: Step[] = [];
  const requests: Seen[] = [];
  const hanging = new Set<http.ServerResponse>();

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const keyVerdict = (res: http.ServerResponse, key: string | undefined, ok: () => void) => {
    if (key === GOOD_KEY) return ok();
    if (key === FLAKY_KEY) return send(res, 503, { error: { message: 'overloaded, try again' } });
    send(res, 401, { error: { message: key ? 'Incorrect API key provided' : 'Missing API key', type: 'invalid_request_error' } });
  };
  const bearer = (req: http.IncomingMessage) => /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];

  const chat = (req: http.IncomingMessage, res: http.ServerResponse, body: any) => {
    if (bearer(req) !== GOOD_KEY) return send(res, 401, { error: { message: 'Incorrect API key provided' } });
    const step = queue.shift() ?? { text: 'ok' };
    if ('hang' in step) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if ('status' in step) return send(res, step.status, { error: { message: step.message ?? `error ${step.status}` } }, step.headers);
    const usage = 'usage' in step && step.usage ? step.usage : { prompt_tokens: 12, completion_tokens: 5 };
    const toolCalls = 'toolCalls' in step ? step.toolCalls.map((c, i) => ({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } })) : undefined;
    const content = 'text' in step ? step.text : null;
    const finish = toolCalls ? 'tool_calls' : 'stop';
    if (!body.stream) {
      return send(res, 200, {
        id: 'chatcmpl-test', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: unknown, finishReason: string | null = null, extra: object = {}) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    if (content) for (const piece of content.match(/.{1,3}/gs) ?? []) chunk({ content: piece });
    toolCalls?.forEach((c, index) => {
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
      for (const piece of c.function.arguments.match(/.{1,4}/gs) ?? []) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    chunk({}, finish);
    if (body.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  };

  const embeddings = (req: http.IncomingMessage, res: http.ServerResponse, body: any) => {
    if (bearer(req) !== GOOD_KEY) return send(res, 401, { error: { message: 'Incorrect API key provided' } });
    const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
    const dims = body.dimensions ?? 8;
    // A deterministic vector per input: character codes folded into `dims` buckets.
    const vector = (text: string) => Array.from({ length: dims }, (_, i) => [...text].filter((_, j) => j % dims === i).reduce((n, ch) => n + ch.charCodeAt(0), 0) / 1000);
    send(res, 200, {
      object: 'list', model: body.model,
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) })),
      usage: { prompt_tokens: inputs.join(' ').split(/\s+/).length, total_tokens: inputs.join(' ').split(/\s+/).length },
    });
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        return send(res, 400, { error: { message: 'bad json' } });
      }
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ method: req.method!, path, headers: req.headers, body });
      const is = (vendor: keyof typeof PREFIXES, rest: string) => path === `${PREFIXES[vendor]}${rest}`;
      if (req.method === 'GET' && is('openai', '/models')) return keyVerdict(res, bearer(req), () => send(res, 200, { object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model' }] }));
      if (req.method === 'GET' && is('anthropic', '/models')) {
        if (!req.headers['anthropic-version']) return send(res, 400, { error: { message: 'anthropic-version header is required' } });
        return keyVerdict(res, req.headers['x-api-key'] as string | undefined, () => send(res, 200, { data: [{ id: 'claude-sonnet-4-5', type: 'model' }] }));
      }
      if (req.method === 'GET' && is('gemini', '/models')) return keyVerdict(res, req.headers['x-goog-api-key'] as string | undefined, () => send(res, 200, { models: [{ name: 'models/gemini-2.5-flash' }] }));
      if (req.method === 'GET' && is('openrouter', '/key')) return keyVerdict(res, bearer(req), () => send(res, 200, { data: { label: 'test', limit: null } }));
      if (req.method === 'POST' && (is('openai', '/chat/completions') || is('anthropic', '/chat/completions') || is('gemini', '/openai/chat/completions') || is('openrouter', '/chat/completions'))) {
        return chat(req, res, body);
      }
      if (req.method === 'POST' && (is('openai', '/embeddings') || is('gemini', '/openai/embeddings') || is('openrouter', '/embeddings'))) return embeddings(req, res, body);
      if (req.method === 'POST' && path === '/rerank/v1/rerank') {
        const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]+/g) ?? []);
        const q = words(String(body.query));
        const results = (body.documents as string[]).map((d, index) => {
          const w = words(d);
          return { index, relevance_score: q.size ? [...q].filter((x) => w.has(x)).length / q.size : 0 };
        }).sort((a, b) => b.relevance_score - a.relevance_score);
        return send(res, 200, { model: body.model, results, usage: { total_tokens: 42 } });
      }
      send(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      OPENAI_BASE_URL: `${url}${PREFIXES.openai}`, ANTHROPIC_BASE_URL: `${url}${PREFIXES.anthropic}`,
      GEMINI_BASE_URL: `${url}${PREFIXES.gemini}`, OPENROUTER_BASE_URL: `${url}${PREFIXES.openrouter}`,
      RERANK_API_URL: `${url}/rerank/v1`,
    },
    script: (...steps) => void queue.push(...steps),
    requests,
    chats: () => requests.filter((r) => r.path.endsWith('/chat/completions')),
    reset: () => {
      queue = [];
      requests.length = 0;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
