// Every HTTP request, seen from outside: a SERVER span (stable HTTP
// attributes, the surface and the route template; never the query string,
// where a key may ride, nor a header) and the request metrics. The span is
// the active one while the request is handled, so the SQL, model and tool
// spans beneath join its trace; an incoming `traceparent` is honoured.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import express, { type Request, type RequestHandler } from 'express';
import { surfaceOf } from '../surfaces.ts';
import { metrics } from './metrics.ts';
import { tracing } from './state.ts';

// Path segments that are ids (a mount such as /knowledge-bases/:id leaves them in baseUrl).
const ID_SEGMENT = /\/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)(?=\/|$)/gi;

/**
 * Each route Express dispatches a request to records its template, while
 * the request's baseUrl still holds the routers it went through (an error
 * handled later sees baseUrl restored to the app's): mounts plus route
 * path, ids in a mount's path written `:id`. Once per process.
 */
let recording = false;
function recordRouteTemplates(): void {
  if (recording) return;
  recording = true;
  const route = (express as unknown as { Route: { prototype: { dispatch: (req: Request, ...rest: unknown[]) => unknown } } }).Route.prototype;
  const dispatch = route.dispatch;
  route.dispatch = function (this: { path: string }, req: Request, ...rest: unknown[]) {
    if (typeof this.path === 'string') {
      const base = req.baseUrl.replace(ID_SEGMENT, '/:id');
      req.routeTemplate = this.path === '/' && base ? base : `${base}${this.path}`;
    }
    return dispatch.call(this, req, ...rest);
  };
}

export function requestTelemetry(): RequestHandler {
  recordRouteTemplates();
  return (req, res, next) => {
    const started = performance.now();
    const path = req.path;
    const surface = surfaceOf(path);
    const span = tracing.on
      ? tracing.tracer!.startSpan(req.method, { kind: SpanKind.SERVER }, req.headers.traceparent ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT)
      : undefined;
    // Attributes only for a span the sampler keeps (pgbase's samplers decide by trace id and parent alone).
    // url.scheme as this server saw the connection (req.protocol would weigh the proxy headers on every request).
    if (span?.isRecording()) span.setAttributes({ 'http.request.method': req.method, 'url.path': path, 'url.scheme': (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http', 'pgbase.surface': surface, 'pgbase.request_id': req.id ?? '' });
    res.once('close', () => {
      const matched = req.routeTemplate;
      const route = matched ?? `${surface}:unmatched`;
      const status = String(res.statusCode);
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
