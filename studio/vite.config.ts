// The Studio's build: React with TypeScript through Vite's own transform (no
// plugin), hashed file names under assets/, no inline script or style (the
// control plane's Content-Security-Policy allows neither), no source maps
// shipped. studio/build.ts runs it (npm install, or the first start). Two
// pages: the Studio (index.html) and the OAuth consent page (consent.html),
// which the project API serves (server/auth/consent-page.ts).
import path from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // STUDIO_NO_MINIFY=1: readable code in a browser profile (bench:studio's hot spots).
    ...(process.env.STUDIO_NO_MINIFY ? { minify: false } : {}),
    assetsInlineLimit: 0,
    cssCodeSplit: true,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      input: { main: path.join(import.meta.dirname, 'index.html'), consent: path.join(import.meta.dirname, 'consent.html') },
      // react-router marks its modules "use client" (for React Server Components, which the Studio does not use).
      onLog(level, log, handler) {
        if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
      },
    },
  },
  logLevel: 'warn',
});
