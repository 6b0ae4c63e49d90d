// What a variable may hold (ports, URLs, rates, switches, networks), and how a
// bad one is told: ConfigError lists each variable with what it expects.
import net from 'node:net';
import { z } from 'zod';

export const port = z.coerce.number().int().min(1).max(65535);
// 0 asks the OS for a free port (tests, several local instances).
export const listenPort = z.coerce.number().int().min(0).max(65535);
export const url = z.string().url();
/** "count/seconds": at most count requests per client IP in a window of that many seconds. */
export const rate = (fallback: string) =>
  z
    .string()
    .regex(/^\d+\/\d+$/, 'count/seconds, like 30/300')
    .default(fallback)
    .transform((v) => {
      const [count, seconds] = v.split('/').map(Number) as [number, number];
      return { count, seconds };
    });
/** HTTP_ALLOW_PRIVATE_NETWORKS: `true`, `false`, or addresses and CIDR ranges, each parsed as an IP address with a prefix its family allows. */
export function allowedNetworks(value: string): boolean {
  if (value === 'true' || value === 'false') return true;
  return value.split(',').every((entry) => {
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = net.isIP(address.replace(/^\[|\]$/g, ''));
    if (family === 0 || extra !== undefined) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
}
export const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v));

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** A zod issue in words a person setting a variable reads. */
export function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      return issue.message.startsWith('at least') ? issue.message : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}
