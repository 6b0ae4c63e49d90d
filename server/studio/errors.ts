// The control plane's named errors, in its body `{code, message}`
// (platform-api/errors.ts's shape): what the Studio and scripts parse.
import { apiError } from '../errors.ts';

export const studioErrors = {
  /** No session cookie, no platform token, or one that does not verify: the same words whichever is missing. */
  signInRequired: () => apiError(401, 'unauthorized', 'A valid platform token is required'),
  csrf: () => apiError(403, 'csrf_failed', 'This request needs the X-CSRF-Token header of your Studio session (reload the page)'),
  wrongPassword: () => apiError(401, 'invalid_credentials', 'Wrong e-mail or password'),
  locked: (seconds: number) => apiError(429, 'too_many_attempts', `Too many failed sign-ins: try again in ${Math.max(1, Math.ceil(seconds / 60))} minute${seconds > 60 ? 's' : ''}`, { retryAfterSeconds: seconds }),
  tooManyFromHere: (seconds: number) => apiError(429, 'too_many_attempts', `Too many sign-in attempts from this address: try again in ${Math.max(1, Math.ceil(seconds / 60))} minute${seconds > 60 ? 's' : ''}`, { retryAfterSeconds: seconds }),
  sessionOnly: () => apiError(400, 'session_required', 'This needs a Studio session (a platform token has none)'),
  invalid: (message: string) => apiError(400, 'invalid_request', message),
  notFound: (what: string) => apiError(404, 'not_found', `${what} not found`),
  unavailable: (message: string) => apiError(503, 'unavailable', message),
};
