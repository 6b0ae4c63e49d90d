// Where an e-mail link or OAuth flow may send the browser back to: SITE_URL's
// own origin, or a URL matching AUTH_REDIRECT_ALLOW_LIST (globs: `*` stays
// within one path segment or host label, `**` crosses them). Anything else
// falls back to SITE_URL, as GoTrue does.
import type { Config } from '../config.ts';

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (ch === '*') out += '[^/.?#]*';
    else if (ch === '?') out += '[^/]';
    else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export function allowedRedirect(config: Config, requested: unknown): string {
  if (typeof requested !== 'string' || requested === '') return config.SITE_URL;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return config.SITE_URL;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) return config.SITE_URL;
  if (url.origin === new URL(config.SITE_URL).origin) return requested;
  const patterns = config.AUTH_REDIRECT_ALLOW_LIST.split(',').map((p) => p.trim()).filter(Boolean);
  return patterns.some((p) => globToRegExp(p).test(requested) || globToRegExp(p).test(requested.replace(/\/$/, ''))) ? requested : config.SITE_URL;
}
