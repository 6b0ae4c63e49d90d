// Documents that buy CPU (containment round 2, item 3). Before, a 26 KB .pptx
// of ten slides of unclosed <a:p> made the slide text regex quadratic (95 s
// of CPU for its first slide), each slide reset the page limit so one file
// held a parser thread up to the file limit, and cancelling the source left
// the thread at work. Now slide XML is read by a streaming XML parser in
// linear time, a file's parsing is bounded in total by the parser's own
// working time (EXTRACTION_BUSY_SECONDS_PER_MB, tested on the pool in
// parser-isolation.test.ts), and a cancel stops the thread at once: the
// next file gets it within a second.
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { aiApi } from '../helpers/ai-api.ts';
import { makeDeflatedZip, makeZip } from '../helpers/documents.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Source = { id: string; extraction_status: string; extraction_message: string | null };

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';

/** Ten slides of `<a:p><a:r><a:t>word` that never close: the quadratic case, in about 26 KB. */
function unclosedParagraphs(): Buffer {
  const files: Record<string, string> = {};
  for (let n = 1; n <= 10; n++) files[`ppt/slides/slide${n}.xml`] = `<p:sld ${P}><p:cSld><p:spTree><p:sp><p:txBody>${'<a:p><a:r><a:t>word '.repeat(60_000)}`;
  const deflated = Object.entries(files).map(([name, xml]) => ({ name, deflated: deflateRawSync(Buffer.from(xml)), declared: Buffer.byteLength(xml) }));
  return makeDeflatedZip(deflated);
}

/** An .xlsx whose one sheet holds `rows` rows of random numbers: ExcelJS reads it in one long step, without progress between. */
function bigSheet(rows: number): Buffer {
  const body: string[] = [];
  for (let r = 1; r <= rows; r++) {
    let cells = '';
    for (let c = 0; c < 8; c++) cells += `<c r="${String.fromCharCode(65 + c)}${r}"><v>${Math.floor(Math.random() * 1e9)}</v></c>`;
    body.push(`<row r="${r}">${cells}</row>`);
  }
  const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const REL = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';
  const sheet = `<worksheet ${NS}><sheetData>${body.join('')}</sheetData></worksheet>`;
  const parts: Record<string, string> = {
    '[Content_Types].xml': '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    '_rels/.rels': `<Relationships ${REL}><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships ${REL}><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
  };
  return makeDeflatedZip([
    ...Object.entries(parts).map(([name, xml]) => ({ name, stored: xml })),
    { name: 'xl/worksheets/sheet1.xml', deflated: deflateRawSync(Buffer.from(sheet)), declared: Buffer.byteLength(sheet) },
  ]);
}

describe('documents that buy CPU', () => {
  let p: TestPlatform;
  const { api, json, headers } = aiApi(() => p);
  const service = () => p.keys.serviceRoleKey;
  const upload = async (filename: string, content: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(content)]), filename);
    const { 'content-type': _json, ...rest } = headers(service());
    return json<Source>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
  };
  const source = async (id: string) => json<Source & { pages_done: number }>(await api(service(), `/sources/${id}`), 200);

  before(async () => {
    // One parser thread, so a file holding it keeps the next one waiting.
    p = await startTestPlatform({ EXTRACTION_WORKERS: '1', WORKER_CONCURRENCY: '3' });
  });
  after(() => stopTestPlatform(p));

  it('reads a 26 KB .pptx of unclosed paragraphs in linear time', async () => {
    const file = unclosedParagraphs();
    assert.ok(file.length < 40_000, `${file.length} bytes`);
    const started = Date.now();
    const { id } = await upload('unclosed.pptx', file);
    const done = await eventually('the extraction ending', () => source(id), (s) => !['pending', 'extracting'].includes(s.extraction_status), { tries: 300, everyMs: 100 });
    assert.equal(done.extraction_status, 'extracted', done.extraction_message ?? '');
    assert.ok(Date.now() - started < 20_000, `read in ${Date.now() - started} ms`);
    const text = (await p.adminPool.query<{ pages_total: number }>('select pages_total from ai.sources where id = $1', [id])).rows[0]!;
    assert.equal(text.pages_total, 10);
  });

  it('a cancel frees the parser thread within a second, while the file would have held it longer', async () => {
    const big = await upload('big.xlsx', bigSheet(200_000));
    await eventually('the sheet being read', () => source(big.id), (s) => s.extraction_status === 'extracting', { tries: 400, everyMs: 50 });
    // Its job reads the file from storage, then takes the thread: give it that long before the next file comes.
    await new Promise((r) => setTimeout(r, 1500));
    const small = await upload('small.txt', Buffer.from('a small file waiting for the only parser thread'));
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = Date.now();
    await json(await api(service(), `/sources/${big.id}/cancel`, { method: 'POST' }), 200);
    await eventually('the small file being read', () => source(small.id), (s) => s.pages_done >= 1 || s.extraction_status === 'extracted', { tries: 400, everyMs: 25 });
    const freed = Date.now() - cancelled;
    // About 0.9 s here (the notice, a 250 ms grace, a thread holding a 1 GB heap terminated, the next file read); without the stop, 15 s and more.
    assert.ok(freed < 2000, `the next file had the thread ${freed} ms after the cancel`);
    assert.equal((await source(big.id)).extraction_status, 'cancelled');
    const done = await eventually('the small file extracted', () => source(small.id), (s) => s.extraction_status === 'extracted', { tries: 200 });
    assert.equal(done.extraction_status, 'extracted');
    assert.equal((await p.adminPool.query('select 1 from ai.source_derivatives where source_id = $1', [big.id])).rowCount, 0, 'nothing kept of the cancelled file');
  });

  it('the same .pptx reader reads a real deck as before', async () => {
    const deck = makeZip({
      'ppt/slides/slide1.xml': `<p:sld ${P}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Otters &amp; rivers</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:txBody><a:p><a:r><a:t>They hold </a:t></a:r><a:r><a:t>hands</a:t></a:r></a:p><a:p/></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
    });
    const { id } = await upload('deck.pptx', deck);
    const done = await eventually('the extraction ending', () => source(id), (s) => !['pending', 'extracting'].includes(s.extraction_status), { tries: 300, everyMs: 100 });
    assert.equal(done.extraction_status, 'extracted');
    const markdown = await api(service(), `/sources/${id}/derivatives/markdown/download`);
    assert.equal(markdown.status, 200);
    assert.equal((await markdown.text()).trim(), '## Slide 1: Otters & rivers\n\n- They hold hands');
  });
});
