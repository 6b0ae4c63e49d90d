// The identity service's error body, as GoTrue writes it and supabase-js's
// auth client parses it.
import { apiError, type ErrorShape } from '../errors.ts';

/** GoTrue's response API version: clients that send it get {code: <error code>, msg}. */
export const AUTH_API_VERSION = '2024-01-01';

/** {code: <status>, error_code, msg}; from API version 2024-01-01 on, {code: <error code>, msg}. */
export const authShape: ErrorShape = (e, req, res) => {
  const asked = req.headers['x-supabase-api-version'];
  const version = typeof asked === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : undefined;
  const current = version !== undefined && version >= AUTH_API_VERSION;
  if (current) res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
  const errorCode = e.code ?? e.kind;
  const body: Record<string, unknown> = current ? { code: errorCode, msg: e.message } : { code: e.status, error_code: errorCode, msg: e.message };
  if (e.details !== undefined && typeof e.details === 'object') Object.assign(body, e.details);
  return body;
};

const validation = (message: string) => apiError(400, 'validation_failed', message);

/** The identity service's named errors, with GoTrue's codes. */
export const authErrors = {
  validation,
  emailOrPhoneRequired: () => validation('An email address or phone number is required'),
  badBanDuration: (value: unknown) => validation('ban_duration: time: invalid duration ' + JSON.stringify(value)),
  notAdmin: () => apiError(403, 'not_admin', 'User not allowed'),
  userNotFound: () => apiError(404, 'user_not_found', 'User not found'),
  captchaMissing: () => apiError(400, 'captcha_failed', 'captcha protection: request disallowed (no captcha response (captcha_token) found in request)'),
  captchaRefused: (reasons: string) => apiError(400, 'captcha_failed', `captcha protection: request disallowed (${reasons})`),
  captchaUnavailable: () => apiError(503, 'captcha_failed', 'captcha verification is unavailable; retry shortly'),
  sessionRequired: () => apiError(401, 'no_authorization', 'This endpoint requires a session (session_id claim)'),
  badJwt: (reason: 'expired' | 'invalid', token: string) => apiError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${
    reason === 'expired' ? 'token has invalid claims: token is expired' : token.split('.').length !== 3 ? 'token is malformed: token contains an invalid number of segments' : 'token signature is invalid'}`),
  bearerRequired: () => apiError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  /** A factor type GoTrue knows but this server does not enrol, with GoTrue's code for it; an unknown one is a validation failure. */
  factorNotEnabled: (type: unknown) => type === 'phone'
    ? apiError(422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone')
    : type === 'webauthn'
      ? apiError(422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn')
      : apiError(400, 'validation_failed', 'factor_type needs to be totp, phone or webauthn'),
  webauthnVerifyDisabled: () => apiError(422, 'mfa_webauthn_verify_not_enabled', 'MFA verification is disabled for WebAuthn'),
  samlDisabled: () => apiError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled'),
  factorNotFound: () => apiError(404, 'mfa_factor_not_found', 'Factor not found'),
  challengeCodeRequired: () => validation('challenge_id and a 6-digit code are required'),
  badTotp: () => apiError(422, 'mfa_verification_failed', 'Invalid TOTP code entered'),
  providerNotSupported: () => validation('Unsupported provider: provider is not supported'),
  providerNotEnabled: () => validation('Unsupported provider: provider is not enabled'),
  badOAuthState: () => apiError(400, 'bad_oauth_state', 'OAuth state is missing, expired or was not issued by this server'),
  providerDenied: (message: string) => apiError(403, 'provider_denied', message),
  noProviderUser: () => apiError(400, 'bad_oauth_callback', 'The provider returned no user id'),
  oauthFailed: () => apiError(400, 'bad_oauth_callback', 'The provider sign-in could not be completed'),
  rateLimited: (code: string, message: string) => apiError(429, code, message),
  passwordTooShort: (min: number) =>
    apiError(422, 'weak_password', `Password should be at least ${min} characters.`, { details: { weak_password: { reasons: ['length'] } } }),
  passwordTooLong: () => apiError(422, 'weak_password', 'Password cannot be longer than 72 characters', { details: { weak_password: { reasons: ['length'] } } }),
  phoneProviderDisabled: () => apiError(400, 'phone_provider_disabled', 'Unsupported phone provider'),
  idTokenIssuerDisabled: (issuer: string) => apiError(400, 'provider_disabled', `Provider (issuer "${issuer}") is not enabled`),
  idTokenProviderDisabled: (provider: string) => apiError(400, 'provider_disabled', `Custom OIDC provider "${provider}" not allowed`),
  badIdToken: (reason: string) => apiError(400, 'bad_jwt', `Bad ID token: ${reason}`),
  web3Disabled: (chain: string) => apiError(422, 'web3_provider_disabled', `${chain}Web3 provider is disabled`),
  anonymousDisabled: () => apiError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'),
  manualLinkingDisabled: () => apiError(404, 'manual_linking_disabled', 'Manual linking is disabled'),
  badPagination: (what: string) => apiError(400, 'validation_failed', `Bad Pagination Parameters: ${what}`),
  signupDisabled: () => apiError(403, 'signup_disabled', 'Signups not allowed for this instance'),
  refreshTokenUsed: () => apiError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  unsupportedGrant: (grant: unknown) => apiError(400, 'unsupported_grant_type', `Unsupported grant type ${JSON.stringify(grant ?? '')}`),
  logoutScope: (scope: string) => validation(`Unsupported logout scope "${scope}"`),
};
