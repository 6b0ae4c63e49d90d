// `npm run bench:sources`: source extraction through the API and the worker,
// each figure beside the same library work called directly in this process:
//   - a 100-page text PDF: pages per second from upload to `extracted` (text
//     layer, a rendered page image each, derivatives stored), beside unpdf
//     reading the text layer and rendering the pages directly
//   - a 5-page scanned PDF: OCR seconds per page through the API, beside
//     the same pages rendered (unpdf) and recognised (tesseract.js) directly
//   - the peak RSS of this process, which runs the server and its worker
// Medians of ROUNDS rounds after a warm-up. The platform runs in this process
// on a throwaway cluster (fsync off).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { createRequire } from 'node:module';
import { createWorker } from 'tesseract.js';
import { startCluster } from '../test/helpers/cluster.ts';
import { makePdf, makeScannedPdf, textPixels } from '../test/helpers/documents.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ENGLISH = createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
const PAGES = 100;
const SCANNED_PAGES = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cluster = await startCluster();
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-sources-')), WORKER: 'in-process',
}), { log: createLogger('warn') });
const key = platform.keys.serviceRoleKey;

/** Upload to `extracted`, in seconds. */
async function throughApi(filename: string, bytes: Buffer, model = 'auto'): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  form.append('extraction_model', model);
  const started = performance.now();
  const res = await fetch(`${platform.url}/api/sources/upload`, { method: 'POST', headers: { apikey: key, authorization: `Bearer ${key}` }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const s = (await (await fetch(`${platform.url}/api/sources/${id}`, { headers: { apikey: key, authorization: `Bearer ${key}` } })).json()) as { extraction_status: string; extraction_message: string };
    if (s.extraction_status === 'extracted') return (performance.now() - started) / 1000;
    if (!['pending', 'extracting'].includes(s.extraction_status)) throw new Error(`${filename}: ${s.extraction_status} ${s.extraction_message}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same library work, directly: each page's text layer and its rendered image. */
async function direct(bytes: Buffer): Promise<number> {
  const started = performance.now();
  const doc = await getDocumentProxy(new Uint8Array(bytes));
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    await page.getTextContent();
    page.cleanup();
    await renderPageAsImage(doc, n, { canvasImport: () => import('@napi-rs/canvas'), scale: 2 });
  }
  await doc.loadingTask.destroy();
  return (performance.now() - started) / 1000;
}

try {
  const text = makePdf(Array.from({ length: PAGES }, (_, i) => `Page ${i + 1}: the quick brown fox jumps over the lazy dog, again and again.`));
  await throughApi('warm.pdf', makePdf(['warm up']));
  await direct(makePdf(['warm up']));
  const rounds: Array<{ api: number; direct: number }> = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push({ api: await throughApi(`text-${r}.pdf`, text), direct: await direct(text) });
  const apiRate = PAGES / median(rounds.map((r) => r.api));
  const directRate = PAGES / median(rounds.map((r) => r.direct));
  console.log(`text PDF (${PAGES} pages)         ${apiRate.toFixed(1)} pages/s through the API and worker | ${directRate.toFixed(1)} pages/s unpdf directly | ratio ${(apiRate / directRate).toFixed(2)}`);

  const pixels = await textPixels('TOTAL 421');
  const scannedMany = makeScannedPdf(pixels, SCANNED_PAGES);
  const tesseract = await createWorker('eng', 1, { langPath: ENGLISH.langPath, gzip: ENGLISH.gzip, cacheMethod: 'none' });
  const directOcrRun = async () => {
    const started = performance.now();
    const doc = await getDocumentProxy(new Uint8Array(scannedMany));
    for (let n = 1; n <= SCANNED_PAGES; n++) await tesseract.recognize(Buffer.from(await renderPageAsImage(doc, n, { canvasImport: () => import('@napi-rs/canvas'), scale: 2 })));
    await doc.loadingTask.destroy();
    return (performance.now() - started) / 1000 / SCANNED_PAGES;
  };
  await directOcrRun();
  await throughApi('scan-warm.pdf', makeScannedPdf(pixels, 1));
  const ocrRounds: Array<{ api: number; direct: number }> = [];
  for (let r = 0; r < ROUNDS; r++) ocrRounds.push({ api: (await throughApi(`scan-${r}.pdf`, scannedMany)) / SCANNED_PAGES, direct: await directOcrRun() });
  await tesseract.terminate();
  const apiOcr = median(ocrRounds.map((r) => r.api));
  const directOcr = median(ocrRounds.map((r) => r.direct));
  console.log(`OCR of scanned pages              ${apiOcr.toFixed(2)} s/page through the API and worker | ${directOcr.toFixed(2)} s/page unpdf and tesseract.js directly | ratio ${(directOcr / apiOcr).toFixed(2)}`);
  console.log(`peak RSS (server and worker)      ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
} finally {
  await platform.stop();
  await cluster.stop();
}
