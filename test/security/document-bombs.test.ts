// Untrusted documents are parsed outside the API process, with limits
// (containment item 2). Bombs made in the test: DOCX, XLSX and PPTX whose one
// part inflates to hundreds of MB from under 1 MB, a zip declaring 1 KB that
// inflates to 1 GB, a PNG declaring 60,000 x 60,000 pixels, a PDF of 6,000
// pages, and a DOCX that passes the zip checks but needs more heap than its
// parser thread has. Each source ends `failed` with a message naming the
// limit; /health answers throughout; this process's memory stays bounded;
// a good file is read afterwards by the same workers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { aiApi } from '../helpers/ai-api.ts';
import { deflatedRepeat, makeDeflatedZip, makeDocx, makePdf, makePngHeader } from '../helpers/documents.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { eventually } from '../helpers/eventually.ts';

type Source = { id: string; extraction_status: string; extraction_message: string | null };

const CONTENT_TYPES = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>';

/** An OOXML package whose `part` is a deflated bomb of `mb` MB of `unit` repeated, sizes declared honestly. */
function officeBomb(part: string, unit: string, mb: number): Buffer {
  const chunk = Buffer.from(unit.repeat(Math.ceil(1024 * 1024 / unit.length)).slice(0, 1024 * 1024), 'utf8');
  return makeDeflatedZip([
    { name: '[Content_Types].xml', stored: CONTENT_TYPES },
    { name: part, deflated: deflatedRepeat(chunk, mb), declared: mb * 1024 * 1024 },
  ]);
}

describe('document bombs fail their source, not the server', () => {
  let p: TestPlatform;
  const { api, json, headers } = aiApi(() => p);
  const service = () => p.keys.serviceRoleKey;
  let healthFailures = 0;
  let slowestHealthMs = 0;
  let watching = true;
  let watcher: Promise<void>;

  const upload = async (filename: string, content: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(content)]), filename);
    const { 'content-type': _json, ...rest } = headers(service());
    return json<Source>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
  };
  const settled = (id: string): Promise<Source> =>
    eventually('the extraction ending', async () => json<Source>(await api(service(), `/sources/${id}`), 200), (s) => !['pending', 'extracting'].includes(s.extraction_status), { tries: 1200 });

  let longPdf: Buffer;
  before(async () => {
    // Made before /health is watched: building 6,000 pages takes this process seconds (the helper is simple, not fast).
    longPdf = makePdf(Array.from({ length: 6000 }, (_, i) => `page ${i + 1}`));
    p = await startTestPlatform({ EXTRACTION_MAX_HEAP_MB: '96', WORKER_CONCURRENCY: '2' });
    watcher = (async () => {
      while (watching) {
        const started = performance.now();
        const res = await fetch(`${p.url}/health`, { signal: AbortSignal.timeout(5000) }).catch((err: Error) => {
          console.log(`# /health failed after ${Math.round(performance.now() - started)} ms: ${err.message}`);
          return null;
        });
        if (!res || res.status !== 200) {
          healthFailures++;
          if (res) console.log(`# /health answered ${res.status}: ${await res.clone().text()}`);
        }
        await res?.body?.cancel();
        slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  });
  after(async () => {
    watching = false;
    await watcher;
    await stopTestPlatform(p);
  });

  it('fails every bomb with a message naming its limit while /health answers and memory stays bounded', async () => {
    const rssBefore = process.memoryUsage().rss;
    const paragraph = '<w:p><w:r><w:t>lorem ipsum dolor sit amet</w:t></w:r></w:p>';
    const bombs: Array<[string, Buffer, RegExp]> = [
      ['bomb.docx', officeBomb('word/document.xml', paragraph, 300), /inflates more than 200 times its stored size|inflates past/],
      ['bomb.xlsx', officeBomb('xl/worksheets/sheet1.xml', '<row><c t="inlineStr"><is><t>x</t></is></c></row>', 300), /inflates more than 200 times its stored size|inflates past/],
      ['bomb.pptx', officeBomb('ppt/slides/slide1.xml', '<a:p><a:r><a:t>slide</a:t></a:r></a:p>', 300), /inflates more than 200 times its stored size|inflates past/],
      ['liar.docx', makeDeflatedZip([{ name: '[Content_Types].xml', stored: CONTENT_TYPES }, { name: 'word/document.xml', deflated: deflatedRepeat(Buffer.alloc(1024 * 1024), 1024), declared: 1024 }]),
        /inflates more than 200 times its stored size|inflates past/],
      ['huge.png', makePngHeader(60_000, 60_000), /declares 60000 x 60000 pixels, more than 100 million/],
      ['long.pdf', longPdf, /has 6000 pages, more than 5000/],
    ];
    for (const [name, bytes] of bombs) assert.ok(bytes.length < 2 * 1024 * 1024, `${name} is small: ${bytes.length} bytes`);
    const made = await Promise.all(bombs.map(([name, bytes]) => upload(name, bytes)));
    for (const [i, source] of made.entries()) {
      const done = await settled(source.id);
      assert.equal(done.extraction_status, 'failed', `${bombs[i]![0]}: ${JSON.stringify(done)}`);
      assert.match(done.extraction_message ?? '', bombs[i]![2], bombs[i]![0]);
    }
    assert.ok(process.memoryUsage().rss - rssBefore < 768 * 1024 * 1024, `this process grew by ${Math.round((process.memoryUsage().rss - rssBefore) / 1024 / 1024)} MB`);
    assert.equal(healthFailures, 0, '/health answered throughout');
  });

  it('fails a file whose parser needs more heap than its thread has, once, and keeps serving', async () => {
    // Passes the zip checks (varied text, stored): about 14 MB of paragraphs that mammoth turns into a tree far larger than 96 MB.
    const words = Array.from({ length: 220_000 }, () => `<w:p><w:r><w:t>${randomBytes(12).toString('hex')}</w:t></w:r></w:p>`).join('');
    const heavy = makeDeflatedZip([
      { name: '[Content_Types].xml', stored: CONTENT_TYPES },
      { name: 'word/document.xml', stored: `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${words}</w:body></w:document>` },
    ]);
    const source = await upload('heavy.docx', heavy);
    const done = await settled(source.id);
    assert.equal(done.extraction_status, 'failed', JSON.stringify(done));
    assert.match(done.extraction_message ?? '', /needed more than 96 MB of memory \(EXTRACTION_MAX_HEAP_MB\)/);
    const { rows } = await p.adminPool.query(`select attempts from graphile_worker._private_jobs where key = $1
      union all select 0 where not exists (select 1 from graphile_worker._private_jobs where key = $1)`, [`source:${source.id}`]);
    assert.ok(rows.every((r: { attempts: number }) => r.attempts <= 1), 'not retried into the same crash');
    // The same workers read a good file afterwards.
    const good = await upload('fine.docx', makeDocx({ heading: 'Still here', paragraph: 'after the bombs', table: [['a', 'b'], ['c', 'd']] }));
    assert.equal((await settled(good.id)).extraction_status, 'extracted');
    assert.equal(healthFailures, 0, '/health answered throughout');
    assert.ok(slowestHealthMs < 5000, `slowest /health: ${Math.round(slowestHealthMs)} ms`);
  });
});
