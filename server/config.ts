// The one place the environment is read. Every variable is validated here, so a
// bad value stops the start with a message naming the variable and what it expects.
import path from 'node:path';
// The variables: config/variables.ts; what they may hold: config/checks.ts;
// the identity providers: config/oauth.ts.
import { ConfigError, describe } from './config/checks.ts';
import { oauthProviders, type OAuthProviderConfig, type OAuthProviderId } from './config/oauth.ts';
import { variables, type Env } from './config/variables.ts';

export { ConfigError } from './config/checks.ts';
export { OAUTH_PROVIDERS, type OAuthProviderConfig, type OAuthProviderId } from './config/oauth.ts';
export type { Env } from './config/variables.ts';

export type Config = Env & {
  oauth: Partial<Record<OAuthProviderId, OAuthProviderConfig>>;
  dataDir: string;
  migrationsDir: string;
  apiUrl: string;
  platformUrl: string;
  /** The variables the environment set (a default fills the others): where set, a REST setting wins over the database's. */
  setInEnvironment: ReadonlySet<string>;
};

/** Reads and validates the environment; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as in most .env tooling.
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = variables.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        const got = input[name];
        const shown = name.includes('SECRET') || name.includes('KEY') || name.includes('URL') ? '' : ` (got ${JSON.stringify(got)})`;
        return `${name}: ${describe(issue)}${shown}`;
      }),
    );
  }
  const e = parsed.data;
  const oauth = oauthProviders(input);
  if (e.AUTH_SMS_PROVIDER === 'twilio') {
    const missing = (['AUTH_SMS_TWILIO_ACCOUNT_SID', 'AUTH_SMS_TWILIO_AUTH_TOKEN', 'AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID'] as const).filter((k) => !e[k]);
    if (missing.length > 0) throw new ConfigError(missing.map((k) => `${k}: required when AUTH_SMS_PROVIDER is twilio`));
  }
  if (e.STORAGE_BACKEND === 's3' && !e.STORAGE_S3_BUCKET) throw new ConfigError(['STORAGE_S3_BUCKET: required when STORAGE_BACKEND is s3']);
  if (e.AUTH_CAPTCHA_PROVIDER && !e.AUTH_CAPTCHA_SECRET) throw new ConfigError(['AUTH_CAPTCHA_SECRET: required when AUTH_CAPTCHA_PROVIDER is set']);
  const local = (p: number) => `http://localhost:${p}`;
  return {
    ...e,
    setInEnvironment: new Set(Object.keys(input)),
    oauth,
    dataDir: path.resolve(e.DATA_DIR),
    migrationsDir: path.resolve(e.MIGRATIONS_DIR),
    apiUrl: (e.API_EXTERNAL_URL ?? local(e.PORT)).replace(/\/$/, ''),
    platformUrl: (e.PLATFORM_EXTERNAL_URL ?? local(e.PLATFORM_PORT)).replace(/\/$/, ''),
  };
}
