// The control plane's error body: the spec's {code, message}, code `unauthorized` on 401,
// with an error's own fields beside them (a failed query's sqlstate and position).
import { apiError, type ErrorShape } from '../errors.ts';

export const platformShape: ErrorShape = (e) => ({
  code: e.code ?? e.kind, message: e.message,
  ...(e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details : {}),
});

export const platformErrors = {
  tokenRequired: () => apiError(401, 'unauthorized', 'A valid platform token is required'),
  projectNotGranted: (ref: string) => apiError(403, 'forbidden', `This platform token does not grant access to project ${ref}`),
  noProject: (ref: string) => apiError(404, 'not_found', `No project ${ref} on this server`),
  invalid: (message: string) => apiError(400, 'invalid_request', message),
};
