// One storage SQL call as a caller: their role and claims set for the
// transaction (so storage policies decide), one round trip, and errors worded
// as Supabase Storage words them. Shared by the object routes, resumable
// uploads and image rendering.
import type pg from 'pg';
import { queryAsRole } from '../../db/pipeline.ts';
import { fromPostgresError, type ApiError } from '../errors.ts';
import { storageErrors } from './errors.ts';
import type { Claims } from '../keys.ts';

export type Caller = { role: string; claims: Claims; method?: string; path?: string };

/** The service role: public reads, signed URLs (whose token already decided) and the control plane. */
export const SERVICE: Caller = { role: 'service_role', claims: { role: 'service_role' } };

export function storageError(err: unknown, role: string): ApiError {
  const mapped = fromPostgresError(err, role);
  // Row-level security refusals read as Supabase Storage words them.
  if (mapped.code === '42501') return storageErrors.rlsDenied(err);
  return mapped;
}

export type CallAs = <R>(caller: Caller, sql: string, values: unknown[]) => Promise<R[]>;

export function storageCalls(pool: pg.Pool): CallAs {
  return async <R>(caller: Caller, sql: string, values: unknown[]): Promise<R[]> => {
    try {
      return await queryAsRole<R>(pool, caller, sql, values);
    } catch (err) {
      throw storageError(err, caller.role);
    }
  };
}
