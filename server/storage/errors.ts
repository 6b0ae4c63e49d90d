// Storage's error body, as Supabase Storage writes it and supabase-js's
// storage client parses it.
import { httpTitle, type ApiError, type ErrorShape } from '../errors.ts';

/** {statusCode, error, message}, statusCode as a string. */
export function storageBody(e: ApiError): { statusCode: string; error: string; message: string } {
  return { statusCode: String(e.status), error: e.code ?? httpTitle(e.status) ?? 'Error', message: e.message };
}

export const storageShape: ErrorShape = (e) => storageBody(e);
