// Every HTTP request, seen from outside: a SERVER span (stable HTTP
// attributes, the surface and the route template; never the query string,
// where a key may ride, nor a header) and the request metrics. The span is
// the active one while the request is handled, so the SQL, model and tool
// spans beneath join its trace; an incoming `traceparent` is honoured.
import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import express, { type Request, type RequestHandler } from 'express';
import { surfaceOf } from '../surfaces.ts';
import { metrics, withinSeriesBudget } from './metrics.ts';
import { tracing } from './state.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The path patterns of the routers this request is inside, outermost first (as mounted, never as requested). */
    mountPatterns?: string[];
  }
}

type Layer = { route?: unknown; handle: { stack?: unknown }; rawPath: unknown; handleRequest: (req: Request, res: unknown, next: (err?: unknown) => void) => unknown };

/**
 * A request's route template is built from patterns only, never from its
 * path: each router it enters adds the pattern it was mounted at (taken off
 * again when the router passes the request on), and the route Express
 * dispatches it to adds its own. So `/API/Knowledge-Bases/<anything>/sources`
 * is `/api/knowledge-bases/:id/sources`, as mounted. Once per process.
 */
let recording = false;
function recordRouteTemplates(): void {
  if (recording) return;
  recording = true;
  // Express 5's router: a Layer keeps the pattern it was made with (rawPath); a mounted router's layer calls it.
  const layer = (createRequire(import.meta.url)('router/lib/layer.js') as { prototype: Layer }).prototype;
  const handleRequest = layer.handleRequest;
  layer.handleRequest = function (this: Layer, req, res, next) {
    if (this.route || !Array.isArray(this.handle.stack)) return handleRequest.call(this, req, res, next);
    const mounts = (req.mountPatterns ??= []);
    const depth = mounts.length;
    mounts.push(typeof this.rawPath === 'string' ? this.rawPath : ':pattern');
    return handleRequest.call(this, req, res, (err?: unknown) => {
      mounts.length = depth;
      next(err);
    });
  };
  const route = (express as unknown as { Route: { prototype: { dispatch: (req: Request, ...rest: unknown[]) => unknown } } }).Route.prototype;
  const dispatch = route.dispatch;
  route.dispatch = function (this: { path: unknown }, req: Request, ...rest: unknown[]) {
    const own = typeof this.path === 'string' ? this.path : ':pattern';
    const base = (req.mountPatterns ?? []).filter((m) => m !== '/').join('');
    req.routeTemplate = own === '/' && base ? base : `${base}${own}`;
    return dispatch.call(this, req, ...rest);
  };
}

export function requestTelemetry(): RequestHandler {
  recordRouteTemplates();
  return (req, res, next) => {
    const started = performance.now();
    const path = req.path;
    // Express matches paths without case: /API/agents is the AI surface, not another one.
    const surface = surfaceOf(path.toLowerCase());
    const span = tracing.on
      ? tracing.tracer!.startSpan(req.method, { kind: SpanKind.SERVER }, req.headers.traceparent ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT)
      : undefined;
    // Attributes only for a span the sampler keeps (pgbase's samplers decide by trace id and parent alone).
    // url.scheme as this server saw the connection (req.protocol would weigh the proxy headers on every request).
    if (span?.isRecording()) span.setAttributes({ 'http.request.method': req.method, 'url.path': path, 'url.scheme': (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http', 'pgbase.surface': surface, 'pgbase.request_id': req.id ?? '' });
    res.once('close', () => {
      const matched = req.routeTemplate;
      const status = String(res.statusCode);
      const named = matched ?? `${surface}:unmatched`;
      // Past the series budget (METRICS_MAX_SERIES) a new label set is counted as its surface's `other`.
      const route = withinSeriesBudget('http', `${surface} ${named} ${req.method} ${status}`) ? named : `${surface}:other`;
      const labels = { surface, route, method: req.method, status };
      metrics.requests.inc(labels);
      metrics.requestSeconds.observe(labels, (performance.now() - started) / 1000);
      if (!span) return;
      if (!span.isRecording()) return span.end();
      span.setAttribute('http.response.status_code', res.statusCode);
      if (matched) span.updateName(`${req.method} ${matched}`).setAttribute('http.route', matched);
      if (!res.writableFinished) span.setAttribute('pgbase.aborted', true);
      // A server error is the span's error, typed by its status code (the HTTP conventions' error.type).
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', String(res.statusCode));
      span.end();
    });
    if (!span) return next();
    context.with(trace.setSpan(ROOT_CONTEXT, span), next);
  };
}
