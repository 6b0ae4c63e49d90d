// Realtime's HTTP error body (the socket's own errors are Phoenix replies).
import type { ApiError, ErrorShape } from '../errors.ts';

export function realtimeBody(e: ApiError): { error: string; message: string } {
  return { error: e.kind, message: e.message };
}

export const realtimeShape: ErrorShape = (e) => realtimeBody(e);
