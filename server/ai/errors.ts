// The AI surface's errors: part 7's two bodies and the named errors of every
// AI route. A route declares its body (aiShape or aiCodedShape) where it is
// mounted; the catalogue below is the only place an AI error is worded.
import { apiError, type ErrorShape } from '../errors.ts';

/** The extra top-level fields an AI error may carry (`details` of settings, `fields` of provider keys, ...). */
type Extra = Record<string, unknown>;
const extraOf = (details: unknown): Extra => (details && typeof details === 'object' && !Array.isArray(details) ? (details as Extra) : {});

/** `{error}`, plus the error's extra fields. */
export const aiShape: ErrorShape = (e) => ({ error: e.message, ...extraOf(e.details) });

/** `{error, error_code}`, plus the error's extra fields (workflow get, graph and execute). */
export const aiCodedShape: ErrorShape = (e) => ({ error: e.message, error_code: e.code ?? e.kind.toUpperCase(), ...extraOf(e.details) });

export const aiErrors = {
  /** 400: a body or parameter that breaks a rule; `extra` adds top-level fields such as `details`. */
  validation: (message: string, extra?: Extra) => apiError(400, 'VALIDATION_ERROR', message, extra ? { details: extra } : {}),
  userTokenOrServiceKey: () => apiError(403, 'FORBIDDEN', 'This needs a signed-in user token or the service-role key; the anonymous key alone is refused'),
  bearerRequired: () => apiError(401, 'UNAUTHORIZED', 'Authorization: Bearer <key or user token> is required'),
  serviceRoleOnly: () => apiError(403, 'FORBIDDEN', 'Only the service-role key may change project configuration'),
  notYours: (what: string) => apiError(403, 'FORBIDDEN', `You can only change your own ${what}`),
  notFound: (what: string) => apiError(404, 'NOT_FOUND', `${what} not found`),
  methodNotAllowed: (message: string) => apiError(405, 'METHOD_NOT_ALLOWED', message),
  workflowNotFound: () => apiError(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found'),
  webhookUnauthorized: () => apiError(401, 'UNAUTHORIZED', 'Unauthorized'),
  webhookInactive: () => apiError(403, 'WEBHOOK_INACTIVE', 'This webhook is not active: deploy the workflow, or arm it for one call'),
  settingNotFound: (key: string) => apiError(404, 'SETTING_NOT_FOUND', `Unknown setting: ${key}`),
  unknownProvider: (provider: string) => apiError(400, 'VALIDATION_ERROR', `Unknown provider: ${provider}; expected one of openai, anthropic, gemini, openrouter`),
  keyRejected: (fields: Record<string, string>) => apiError(400, 'VALIDATION_ERROR', 'Validation failed', { details: { fields } }),
  /** 402: no usable key for the model's provider (none stored, none from the platform, or one that cannot be decrypted). */
  noProviderKey: (provider: string) => apiError(402, 'provider_key_decrypt_failed', 'provider_key_decrypt_failed', { details: { provider } }),
  noCredits: () => apiError(402, 'INSUFFICIENT_CREDITS', 'No AI credits left for this project: add credits or ask an administrator'),
  providerFailed: (provider: string, message: string, status?: number) =>
    apiError(502, 'PROVIDER_ERROR', `The ${provider} API failed: ${message}`, status === undefined ? {} : { details: { provider_status: status } }),
  providerTimeout: (provider: string) => apiError(504, 'PROVIDER_TIMEOUT', `The ${provider} API did not answer in time`),
  cancelled: () => apiError(499, 'CANCELLED', 'The request was cancelled', { kind: 'invalid_request' }),
  badModel: (model: string) => apiError(400, 'VALIDATION_ERROR', `Invalid model id "${model}": use <model> (OpenAI, claude-* for Anthropic), gemini/<model> or openrouter/<org>/<model>`),
};
