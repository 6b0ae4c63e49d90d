// The third-party identity providers (GoTrue's), each configured by its
// AUTH_EXTERNAL_<PROVIDER>_* variables.
import { ConfigError } from './checks.ts';

/** GoTrue's 20 third-party identity providers. */
export const OAUTH_PROVIDERS = [
  'apple', 'azure', 'bitbucket', 'discord', 'facebook', 'figma', 'fly', 'github', 'gitlab', 'google',
  'kakao', 'keycloak', 'linkedin_oidc', 'notion', 'slack_oidc', 'spotify', 'twitch', 'twitter', 'workos', 'zoom',
] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDERS)[number];

/** AUTH_EXTERNAL_<PROVIDER>_*: a provider's client and, for tests or self-hosted providers, its endpoints. */
export type OAuthProviderConfig = {
  clientId: string;
  secret: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  userinfoUrl?: string;
  issuer?: string;
  scopes?: string;
  /** signInWithIdToken: where the provider publishes its signing keys, and the other client ids its tokens may be for (a mobile app's). */
  jwksUrl?: string;
  additionalClientIds?: string[];
};

/** The enabled providers, each checked: ConfigError names every bad or missing variable. */
export function oauthProviders(input: Record<string, string | undefined>): Partial<Record<OAuthProviderId, OAuthProviderConfig>> {
  const issues: string[] = [];
  const out: Partial<Record<OAuthProviderId, OAuthProviderConfig>> = {};
  for (const id of OAUTH_PROVIDERS) {
    const v = (name: string) => input[`AUTH_EXTERNAL_${id.toUpperCase()}_${name}`];
    const enabled = v('ENABLED');
    if (enabled === undefined || ['false', '0', 'no', 'off'].includes(enabled)) continue;
    const prefix = `AUTH_EXTERNAL_${id.toUpperCase()}`;
    if (!['true', '1', 'yes', 'on'].includes(enabled)) issues.push(`${prefix}_ENABLED: expected true or false (got ${JSON.stringify(enabled)})`);
    const clientId = v('CLIENT_ID');
    const secret = v('SECRET');
    if (!clientId) issues.push(`${prefix}_CLIENT_ID: required when ${prefix}_ENABLED is true`);
    if (!secret) issues.push(`${prefix}_SECRET: required when ${prefix}_ENABLED is true`);
    const urls: Partial<Record<'authorizeUrl' | 'tokenUrl' | 'userinfoUrl' | 'issuer' | 'jwksUrl', string>> = {};
    for (const [key, name] of [['authorizeUrl', 'AUTHORIZE_URL'], ['tokenUrl', 'TOKEN_URL'], ['userinfoUrl', 'USERINFO_URL'], ['issuer', 'ISSUER'], ['jwksUrl', 'JWKS_URL']] as const) {
      const value = v(name);
      if (value === undefined) continue;
      if (!/^https?:\/\/[^\s]+$/.test(value)) issues.push(`${prefix}_${name}: expected an http(s) URL`);
      else urls[key] = value.replace(/\/$/, '');
    }
    const scopes = v('SCOPES');
    const additional = v('ADDITIONAL_CLIENT_IDS')?.split(',').map((c) => c.trim()).filter(Boolean);
    out[id] = { clientId: clientId ?? '', secret: secret ?? '', ...urls, ...(scopes ? { scopes } : {}), ...(additional?.length ? { additionalClientIds: additional } : {}) };
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return out;
}
