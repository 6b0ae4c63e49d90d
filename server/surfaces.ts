// The project port's surfaces by path prefix, and the name each goes by in
// metrics and spans. Row REST first: the busiest prefix meets the fewest
// layers (app.ts mounts them in this order).
export const SURFACES = [
  { prefix: '/rest/v1', name: 'rest' },
  { prefix: '/auth/v1', name: 'auth' },
  { prefix: '/storage/v1', name: 'storage' },
  { prefix: '/realtime/v1', name: 'realtime' },
  { prefix: '/graphql/v1', name: 'graphql' },
  { prefix: '/api/v1', name: 'openai' },
  { prefix: '/api/mcp', name: 'mcp' },
  { prefix: '/api', name: 'ai' },
] as const;

export const SURFACE_PREFIXES = SURFACES.map((s) => s.prefix);

// Paths outside the surfaces: the control plane's API and the servers' own routes.
const OTHERS = [{ prefix: '/api/platform', name: 'platform' }, { prefix: '/metrics', name: 'metrics' }, { prefix: '/health', name: 'health' }];
// Longest prefix first, so /api/v1 and /api/platform win over /api.
const BY_LENGTH = [...SURFACES, ...OTHERS].sort((a, b) => b.prefix.length - a.prefix.length);

/** The surface a path belongs to (`other` for none). */
export function surfaceOf(path: string): string {
  for (const { prefix, name } of BY_LENGTH) if (path === prefix || path.startsWith(`${prefix}/`)) return name;
  return 'other';
}
