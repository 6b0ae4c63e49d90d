// .pptx: slide by slide in presentation order, each a page: the title as a
// heading, other text as lines, speaker notes after them. The zip is checked
// for bombs first (zip.ts); every XML part is read by saxes (the streaming
// XML parser ExcelJS reads sheets with) in one pass and linear time whatever
// the markup: unclosed or deeply nested elements cost what their bytes cost
// (a regex over slide XML was quadratic on unclosed <a:p>: 95 s of CPU for
// one slide of a 26 KB file; htmlparser2 is quadratic in nesting depth).
// Malformed XML is read as far as it goes: its errors are not fatal.
import JSZip from 'jszip';
import { SaxesParser } from 'saxes';
import { checkZip } from './zip.ts';
import { type Element, type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

type Paragraph = { text: string; title: boolean };

/** Reads `xml` once, calling `open` for each element as it starts, `close` as it ends and `text` for character data. */
function readXml(xml: string, on: { open?: (name: string, attributes: Record<string, string>) => void; close?: (name: string) => void; text?: (text: string) => void }): void {
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('opentag', (tag) => on.open?.(tag.name, tag.attributes as Record<string, string>));
  parser.on('closetag', (tag) => on.close?.(tag.name));
  parser.on('text', (text) => on.text?.(text));
  // Each error (one per unclosed element at the end) is an Error: without its stack, 180,000 of them cost 0.1 s, not 3 s.
  parser.on('error', () => undefined);
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    parser.write(xml).close();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * The paragraphs of a slide part: the text of each `<a:p>`'s runs (`<a:t>`),
 * with whether it sits in a title placeholder. A paragraph that opens before
 * the previous one closed ends that one, so nesting never accumulates.
 */
function paragraphs(xml: string): Paragraph[] {
  const out: Paragraph[] = [];
  let shape: Paragraph[] | null = null;
  let shapeIsTitle = false;
  let paragraph: string[] | null = null;
  let inText = 0;
  const endParagraph = () => {
    const text = paragraph?.join('').trim();
    if (text) (shape ?? out).push({ text, title: false });
    paragraph = null;
  };
  const endShape = () => {
    endParagraph();
    if (shape) out.push(...shape.map((p) => ({ ...p, title: shapeIsTitle })));
    shape = null;
  };
  readXml(xml, {
    open: (name, attributes) => {
      if (name === 'p:sp') {
        endShape();
        shape = [];
        shapeIsTitle = false;
      } else if (name === 'p:ph' && shape && (attributes.type === 'title' || attributes.type === 'ctrTitle')) shapeIsTitle = true;
      else if (name === 'a:p') {
        endParagraph();
        paragraph = [];
      } else if (name === 'a:t') inText++;
    },
    close: (name) => {
      if (name === 'a:t') inText = Math.max(0, inText - 1);
      else if (name === 'a:p') endParagraph();
      else if (name === 'p:sp') endShape();
    },
    text: (text) => {
      if (inText > 0) paragraph?.push(text);
    },
  });
  endShape();
  return out;
}

/** The `Id -> Target` of a relationships part. */
function relationships(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  readXml(xml, { open: (name, a) => void (name === 'Relationship' && a.Id && a.Target ? out.set(a.Id, a.Target) : undefined) });
  return out;
}

/** The slides' relationship ids in presentation order. */
function slideOrder(xml: string): string[] {
  const out: string[] = [];
  readXml(xml, { open: (name, a) => void (name === 'p:sldId' && a['r:id'] ? out.push(a['r:id']) : undefined) });
  return out;
}

export const pptx: Extractor = async (bytes, progress) => {
  await checkZip(bytes);
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (err) {
    throw new Failure(`Not a readable PPTX file: ${(err as Error).message}`);
  }
  const read = (path: string) => zip.file(path)?.async('string') ?? Promise.resolve(null);
  // Presentation order: the slide ids in presentation.xml through its relationships; file order otherwise.
  const targets = relationships((await read('ppt/_rels/presentation.xml.rels')) ?? '');
  let slides = slideOrder((await read('ppt/presentation.xml')) ?? '')
    .map((rid) => targets.get(rid))
    .map((target) => (target ? `ppt/${target.replace(/^\//, '').replace(/^ppt\//, '')}` : undefined))
    .filter((p): p is string => !!p && !!zip.file(p));
  if (slides.length === 0) {
    slides = Object.keys(zip.files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f)).sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1]));
  }
  if (slides.length === 0) throw new Failure('Not a readable PPTX file: it has no slides');
  const pages: string[] = [];
  const parts: string[] = [];
  const elements: Element[] = [];
  for (const [i, path] of slides.entries()) {
    const n = i + 1;
    const xml = (await read(path)) ?? '';
    const slideRels = relationships((await read(path.replace(/slides\/(slide\d+\.xml)$/, 'slides/_rels/$1.rels'))) ?? '');
    const notesTarget = [...slideRels.values()].map((t) => /^\.\.\/notesSlides\/(notesSlide\d+\.xml)$/.exec(t)?.[1]).find((t) => t);
    const notes = notesTarget ? paragraphs((await read(`ppt/notesSlides/${notesTarget}`)) ?? '').filter((p) => !/^\d+$/.test(p.text)).map((p) => p.text) : [];
    const paras = paragraphs(xml);
    const title = paras.find((p) => p.title)?.text ?? '';
    const body = paras.filter((p) => !(p.title && p.text === title)).map((p) => p.text);
    parts.push([`## Slide ${n}${title ? `: ${title}` : ''}`, ...body.map((b) => `- ${b}`), ...(notes.length ? [`> Notes: ${notes.join(' ')}`] : [])].join('\n\n'));
    pages.push([title, ...body, ...(notes.length ? [`Notes: ${notes.join(' ')}`] : [])].filter(Boolean).join('\n'));
    elements.push({ page: n, type: 'heading', level: 2, text: title || `Slide ${n}` });
    if (body.length) elements.push({ page: n, type: 'list', text: body.join('\n') });
    if (notes.length) elements.push({ page: n, type: 'paragraph', text: notes.join(' ') });
    await progress(n, slides.length);
  }
  const markdown = parts.join('\n\n');
  return { engine: 'text', markdown, text: pages.join('\n\n'), pages, elements, images: [] };
};
