// Builds the Studio into studio/dist when its sources changed: `npm install`
// runs it (postinstall), `npm start` runs it when the build is missing or
// stale, tests run it once. The build is keyed by a hash of everything it
// is made from (the sources, the config, the locked dependencies), kept in
// dist/.build-hash, so an unchanged Studio is never built twice. After
// Vite, every text asset gets a .br and a .gz beside it, which the control
// plane serves to clients that take them (nothing is compressed per request).
// Without Vite (an install that left out devDependencies) it says so and
// leaves the Studio unbuilt: the control plane's API works without it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const stamp = path.join(dist, '.build-hash');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  }).sort();
}

/** The hash of what the build is made from. */
export function sourceHash(): string {
  const h = createHash('sha256');
  for (const f of [...files(path.join(here, 'src')), ...files(path.join(here, 'public')), path.join(here, 'index.html'), path.join(here, 'consent.html'), path.join(here, 'vite.config.ts'), path.join(here, 'build.ts'), path.join(here, '..', 'package-lock.json')]) {
    if (!existsSync(f)) continue;
    h.update(path.relative(here, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

export const studioBuilt = (): boolean => existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceHash();

function compress(): void {
  for (const f of files(dist)) {
    if (!/\.(js|css|html|svg|json|txt)$/.test(f)) continue;
    const bytes = readFileSync(f);
    if (bytes.length < 1024) continue;
    writeFileSync(`${f}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${f}.gz`, gzipSync(bytes, { level: 9 }));
  }
}

export async function buildStudio(log: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<'built' | 'fresh' | 'unavailable'> {
  if (studioBuilt()) return 'fresh';
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    log('pgbase Studio: Vite is not installed (devDependencies left out?), so the Studio is not built; the control plane serves its API only');
    return 'unavailable';
  }
  const started = Date.now();
  await vite.build({ configFile: path.join(here, 'vite.config.ts'), logLevel: 'warn' });
  compress();
  writeFileSync(stamp, sourceHash());
  log(`pgbase Studio built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 'built';
}

if (import.meta.main) await buildStudio();
