// Documents made in the tests, byte by byte, so extraction is tested on
// files whose content is known: a stored (uncompressed) zip for OOXML, a
// DOCX with a heading, a paragraph and a table, and a PDF with one text line
// per page (or none, as a scan has).
import zlib from 'node:zlib';
import sharp from 'sharp';

/** A zip of stored entries; `declare` overrides an entry's declared uncompressed size (a zip bomb's lie). */
export function makeZip(files: Record<string, string | Buffer>, declare: Record<string, number> = {}): Buffer {
  return makeDeflatedZip(Object.entries(files).map(([name, stored]) => ({ name, stored, ...(declare[name] === undefined ? {} : { declared: declare[name] }) })));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A DOCX: a Heading 1, a paragraph, and a two-by-two table. */
export function makeDocx(opts: { heading: string; paragraph: string; table: [[string, string], [string, string]] }, declare: Record<string, number> = {}): Buffer {
  const cell = (t: string) => `<w:tc><w:p><w:r><w:t>${t}</w:t></w:r></w:p></w:tc>`;
  const body = `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>${opts.heading}</w:t></w:r></w:p>`
    + `<w:p><w:r><w:t>${opts.paragraph}</w:t></w:r></w:p>`
    + `<w:tbl>${opts.table.map((row) => `<w:tr>${row.map(cell).join('')}</w:tr>`).join('')}</w:tbl>`;
  return makeZip({
    '[Content_Types].xml': '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
      + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
      + '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    '_rels/.rels': '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
      + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/_rels/document.xml.rels': '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
      + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W}><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
  }, declare);
}

/** A PDF with one page per entry, each entry's text drawn on one line (an empty entry is a page without text). */
export function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ');
  add(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  pages.forEach((text, i) => {
    const stream = text ? `BT /F1 18 Tf 72 720 Td (${text.replace(/([()\\])/g, '\\$1')}) Tj ET` : '';
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// A blocky 5-by-7 font, enough for OCR to read without any system font.
const GLYPHS: Record<string, string[]> = {
  T: ['11111', '00100', '00100', '00100', '00100', '00100', '00100'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  L: ['10000', '10000', '10000', '10000', '10000', '10000', '11111'],
  '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  '2': ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
  '1': ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
  ' ': ['00000', '00000', '00000', '00000', '00000', '00000', '00000'],
};

/** Black text on white as 8-bit grey pixels (letters T, O, A, L, digits 1, 2, 4 and spaces), softened as a scan is. */
export async function textPixels(text: string, scale = 12): Promise<{ width: number; height: number; grey: Buffer }> {
  const cell = 6;
  const margin = 4;
  const width = (text.length * cell + margin * 2) * scale;
  const height = (9 + margin * 2) * scale;
  const grey = Buffer.alloc(width * height, 255);
  [...text].forEach((c, i) => GLYPHS[c]!.forEach((row, y) => [...row].forEach((bit, x) => {
    if (bit !== '1') return;
    for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) grey[((margin + y + 1) * scale + dy) * width + (margin + i * cell + x) * scale + dx] = 0;
  })));
  const soft = await sharp(grey, { raw: { width, height, channels: 1 } }).blur(scale / 3).extractChannel(0).raw().toBuffer();
  return { width, height, grey: soft };
}

/** A PDF of `pages` pages whose only content is a greyscale image (a scan): no text layer. */
export function makeScannedPdf(image: { width: number; height: number; grey: Buffer }, pages = 1): Buffer {
  const data = zlib.deflateSync(image.grey);
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = Buffer.isBuffer(b) ? b : Buffer.from(b, 'latin1');
    parts.push(buf);
    length += buf.length;
  };
  const obj = (n: number, body: Buffer | string, stream?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n`);
    push(body);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  const w = 612;
  const h = Math.round((612 * image.height) / image.width);
  const draw = `q ${w} 0 0 ${h} 0 ${792 - h} cm /Im1 Do Q`;
  // 1 catalog, 2 pages, 3 image, 4 contents, then one page object each.
  const pageIds = Array.from({ length: pages }, (_, i) => 5 + i);
  push('%PDF-1.4\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`);
  obj(3, `<< /Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>`, data);
  obj(4, `<< /Length ${draw.length} >>`, Buffer.from(draw, 'latin1'));
  for (const id of pageIds) obj(id, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 3 0 R >> >> /Contents 4 0 R >>');
  const xref = length;
  const count = 5 + pages;
  push(`xref\n0 ${count}\n0000000000 65535 f \n${offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A PPTX whose slides are listed in the given order (file names may say otherwise), each with a title, lines and optional notes. */
export function makePptx(slides: Array<{ file: string; title: string; lines: string[]; notes?: string }>): Buffer {
  const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const shape = (ph: string, lines: string[]) => `<p:sp><p:nvSpPr><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:txBody>${lines.map((l) => `<a:p><a:r><a:t>${esc(l)}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`;
  const files: Record<string, string> = {
    'ppt/presentation.xml': `<p:presentation ${P}><p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join('')}</p:sldIdLst></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${slides.map((s, i) => `<Relationship Id="rId${i + 1}" Type="slide" Target="slides/${s.file}"/>`).join('')}</Relationships>`,
  };
  slides.forEach((s, i) => {
    files[`ppt/slides/${s.file}`] = `<p:sld ${P}><p:cSld><p:spTree>${shape('<p:ph type="title"/>', [s.title])}${shape('<p:ph idx="1"/>', s.lines)}</p:spTree></p:cSld></p:sld>`;
    if (s.notes) {
      files[`ppt/slides/_rels/${s.file}.rels`] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="notesSlide" Target="../notesSlides/notesSlide${i + 1}.xml"/></Relationships>`;
      files[`ppt/notesSlides/notesSlide${i + 1}.xml`] = `<p:notes ${P}><p:cSld><p:spTree>${shape('<p:ph type="body" idx="1"/>', [s.notes])}${shape('<p:ph type="sldNum"/>', [String(i + 1)])}</p:spTree></p:cSld></p:notes>`;
    }
  });
  return makeZip(files);
}

/**
 * A raw deflate stream that inflates to `copies` times `chunk`: the chunk is
 * deflated once with a full flush (byte-aligned, no back-reference into the
 * next copy) and repeated, then a final empty block. A 1 GB bomb in milliseconds.
 */
export function deflatedRepeat(chunk: Buffer, copies: number): Buffer {
  const block = zlib.deflateRawSync(chunk, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: copies }, () => block), zlib.deflateRawSync(Buffer.alloc(0))]);
}

/** A zip whose entries are stored, or deflated streams given as they are, each declaring the size it is told to (the bomb's lie, or the truth). */
export function makeDeflatedZip(entries: Array<{ name: string; stored?: string | Buffer; deflated?: Buffer; declared?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = e.deflated ?? (Buffer.isBuffer(e.stored) ? e.stored : Buffer.from(e.stored ?? '', 'utf8'));
    const method = e.deflated ? 8 : 0;
    const size = e.declared ?? data.length;
    const crc = e.deflated ? 0 : zlib.crc32(data);
    const nameBytes = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A PNG whose header declares width x height, with one tiny (truncated) image data chunk: what a decompression bomb's header looks like. */
export function makePngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))), chunk('IEND', Buffer.alloc(0))]);
}
