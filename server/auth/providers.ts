// The third-party identity providers GoTrue offers, with their default
// endpoints. Every endpoint can be replaced by configuration
// (AUTH_EXTERNAL_<ID>_AUTHORIZE_URL, _TOKEN_URL, _USERINFO_URL, _ISSUER), for
// self-hosted providers (Keycloak needs its realm URL as _ISSUER) and for tests.
import type { OAuthProviderConfig, OAuthProviderId } from '../config.ts';

export type ProviderSpec = {
  /** oidc: an ID token is required and its issuer, audience, expiry and nonce are checked. */
  kind: 'oidc' | 'oauth2';
  authorize: string;
  token: string;
  userinfo?: string;
  issuer?: string;
  scopes: string;
  clientAuth?: 'post' | 'basic';
  /** The provider requires PKCE from us too (X does). */
  pkce?: boolean;
};

const oidc = (issuer: string, authorize: string, token: string, userinfo: string | undefined, scopes = 'openid email profile'): ProviderSpec => ({
  kind: 'oidc', issuer, authorize, token, ...(userinfo ? { userinfo } : {}), scopes,
});
const oauth2 = (authorize: string, token: string, userinfo: string, scopes: string, clientAuth: 'post' | 'basic' = 'post'): ProviderSpec => ({
  kind: 'oauth2', authorize, token, userinfo, scopes, clientAuth,
});

export const PROVIDER_DEFAULTS: Record<OAuthProviderId, ProviderSpec> = {
  apple: oidc('https://appleid.apple.com', 'https://appleid.apple.com/auth/authorize', 'https://appleid.apple.com/auth/token', undefined, 'openid email name'),
  azure: oidc('https://login.microsoftonline.com/common/v2.0', 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize', 'https://login.microsoftonline.com/common/oauth2/v2.0/token', 'https://graph.microsoft.com/oidc/userinfo'),
  bitbucket: oauth2('https://bitbucket.org/site/oauth2/authorize', 'https://bitbucket.org/site/oauth2/access_token', 'https://api.bitbucket.org/2.0/user', 'account email'),
  discord: oauth2('https://discord.com/api/oauth2/authorize', 'https://discord.com/api/oauth2/token', 'https://discord.com/api/users/@me', 'email identify'),
  facebook: oauth2('https://www.facebook.com/dialog/oauth', 'https://graph.facebook.com/oauth/access_token', 'https://graph.facebook.com/me?fields=id,email,name,picture', 'email'),
  figma: oauth2('https://www.figma.com/oauth', 'https://api.figma.com/v1/oauth/token', 'https://api.figma.com/v1/me', 'files:read'),
  fly: oauth2('https://api.fly.io/oauth/authorize', 'https://api.fly.io/oauth/token', 'https://api.fly.io/oauth/token/info', 'read'),
  github: oauth2('https://github.com/login/oauth/authorize', 'https://github.com/login/oauth/access_token', 'https://api.github.com/user', 'user:email'),
  gitlab: oauth2('https://gitlab.com/oauth/authorize', 'https://gitlab.com/oauth/token', 'https://gitlab.com/api/v4/user', 'read_user'),
  google: oidc('https://accounts.google.com', 'https://accounts.google.com/o/oauth2/v2/auth', 'https://oauth2.googleapis.com/token', 'https://openidconnect.googleapis.com/v1/userinfo'),
  kakao: oauth2('https://kauth.kakao.com/oauth/authorize', 'https://kauth.kakao.com/oauth/token', 'https://kapi.kakao.com/v2/user/me', 'account_email profile_image profile_nickname'),
  keycloak: oidc('', '/protocol/openid-connect/auth', '/protocol/openid-connect/token', '/protocol/openid-connect/userinfo'),
  linkedin_oidc: oidc('https://www.linkedin.com/oauth', 'https://www.linkedin.com/oauth/v2/authorization', 'https://www.linkedin.com/oauth/v2/accessToken', 'https://api.linkedin.com/v2/userinfo'),
  notion: oauth2('https://api.notion.com/v1/oauth/authorize', 'https://api.notion.com/v1/oauth/token', 'https://api.notion.com/v1/users/me', '', 'basic'),
  slack_oidc: oidc('https://slack.com', 'https://slack.com/openid/connect/authorize', 'https://slack.com/api/openid.connect.token', 'https://slack.com/api/openid.connect.userInfo'),
  spotify: oauth2('https://accounts.spotify.com/authorize', 'https://accounts.spotify.com/api/token', 'https://api.spotify.com/v1/me', 'user-read-email'),
  twitch: oauth2('https://id.twitch.tv/oauth2/authorize', 'https://id.twitch.tv/oauth2/token', 'https://api.twitch.tv/helix/users', 'user:read:email'),
  twitter: { ...oauth2('https://twitter.com/i/oauth2/authorize', 'https://api.twitter.com/2/oauth2/token', 'https://api.twitter.com/2/users/me', 'users.read tweet.read', 'basic'), pkce: true },
  workos: oauth2('https://api.workos.com/sso/authorize', 'https://api.workos.com/sso/token', 'https://api.workos.com/sso/profile', ''),
  zoom: oauth2('https://zoom.us/oauth/authorize', 'https://zoom.us/oauth/token', 'https://api.zoom.us/v2/users/me', 'user:read', 'basic'),
};

/** The provider as configured: defaults with the configured endpoints over them. */
export function resolveProvider(id: OAuthProviderId, c: OAuthProviderConfig): ProviderSpec {
  const d = PROVIDER_DEFAULTS[id];
  // Keycloak's defaults are paths under its realm URL (its issuer).
  const base = id === 'keycloak' ? (c.issuer ?? '') : '';
  return {
    ...d,
    authorize: c.authorizeUrl ?? base + d.authorize,
    token: c.tokenUrl ?? base + d.token,
    ...(c.userinfoUrl || d.userinfo ? { userinfo: c.userinfoUrl ?? base + (d.userinfo ?? '') } : {}),
    ...(c.issuer || d.issuer ? { issuer: c.issuer ?? d.issuer! } : {}),
    scopes: c.scopes ?? d.scopes,
  };
}

export type Profile = { id: string; email: string | null; emailVerified: boolean; name: string | null; avatar: string | null; raw: Record<string, unknown> };

/** One mapping for the common claim names of the providers above. */
export function mapProfile(raw: Record<string, unknown>): Profile | null {
  const pick = (...keys: string[]): unknown => keys.map((k) => raw[k]).find((v) => v !== undefined && v !== null && v !== '');
  const nested = (raw.data && typeof raw.data === 'object' ? (Array.isArray(raw.data) ? raw.data[0] : raw.data) : undefined) as Record<string, unknown> | undefined;
  const source = nested && !pick('sub', 'id') ? nested : raw;
  const get = (...keys: string[]): unknown => keys.map((k) => source[k]).find((v) => v !== undefined && v !== null && v !== '');
  const id = get('sub', 'id', 'user_id', 'account_id', 'uuid');
  if (id === undefined) return null;
  const email = get('email', 'mail');
  const verified = get('email_verified', 'verified_email', 'verified');
  return {
    id: String(id),
    email: typeof email === 'string' ? email.toLowerCase() : null,
    emailVerified: verified === true || verified === 'true',
    name: (get('name', 'full_name', 'global_name', 'display_name', 'username', 'login') as string | undefined) ?? null,
    avatar: (get('picture', 'avatar_url', 'avatar', 'profile_image_url') as string | undefined) ?? null,
    raw: source,
  };
}
