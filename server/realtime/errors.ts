// Realtime's HTTP error body (the socket's own errors are Phoenix replies).
import { apiError, type ApiError, type ErrorShape } from '../errors.ts';

export function realtimeBody(e: ApiError): { error: string; message: string } {
  return { error: e.kind, message: e.message };
}

export const realtimeShape: ErrorShape = (e) => realtimeBody(e);

/** REST broadcast's named errors. */
export const realtimeErrors = {
  bearerRequired: () => apiError(401, undefined, 'Authorization: Bearer <service-role key> is required'),
  privateRefused: (topic: string) => apiError(403, undefined, `no policy on realtime.messages lets this token send to ${topic}`),
  serviceRoleRequired: () => apiError(403, undefined, 'REST broadcast requires the service-role key'),
  invalid: (message: string) => apiError(400, undefined, message),
  payloadTooLarge: (i: number, max: number) => apiError(413, undefined, `messages[${i}].payload is over ${max} bytes`),
};
