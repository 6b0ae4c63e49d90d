// The routes an Express router really answers, read from its layers: what the
// OpenAPI document is checked against, so the two cannot drift.
import type { RequestHandler } from 'express';

/** One route: an upper-case method and an Express path under its mount point (`/agents/:id`). */
export type MountedRoute = { method: string; path: string };

type Layer = { rawPath?: unknown; route?: { path: unknown; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

const join = (prefix: string, path: string) => (`${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1'));

function walk(stack: Layer[], prefix: string, into: MountedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== 'string') continue;
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') into.push({ method: method.toUpperCase(), path: join(prefix, layer.route.path) });
      }
    } else if (layer.handle?.stack) {
      walk(layer.handle.stack, typeof layer.rawPath === 'string' ? join(prefix, layer.rawPath) : prefix, into);
    }
  }
}

/** Every route of the routers mounted at `prefix`, in order, without repeats. */
export function mountedRoutes(prefix: string, routers: RequestHandler[]): MountedRoute[] {
  const found: MountedRoute[] = [];
  for (const router of routers) walk((router as unknown as { stack?: Layer[] }).stack ?? [], prefix, found);
  const seen = new Set<string>();
  return found.filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`));
}
