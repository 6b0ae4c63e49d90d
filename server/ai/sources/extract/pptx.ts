// .pptx: slide by slide in presentation order, each a page: the title as a
// heading, other text as lines, speaker notes after them. Read from the
// slide XML directly (JSZip); the zip is checked for bombs first.
import JSZip from 'jszip';
import { checkZip } from './zip.ts';
import { type Element, type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decode = (s: string) => s.replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, e: string) =>
  e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ENTITIES[e] ?? m);

/** The paragraphs of a slide part, each the text of its runs, with whether it sits in a title placeholder. */
function paragraphs(xml: string): Array<{ text: string; title: boolean }> {
  const out: Array<{ text: string; title: boolean }> = [];
  for (const shape of xml.split(/<p:sp[ >]/).slice(1)) {
    const title = /<p:ph[^>]*type="(title|ctrTitle)"/.test(shape);
    for (const p of shape.match(/<a:p[ >][\s\S]*?<\/a:p>/g) ?? []) {
      const text = decode((p.match(/<a:t>([\s\S]*?)<\/a:t>|<a:t [^>]*>([\s\S]*?)<\/a:t>/g) ?? []).map((t) => t.replace(/<[^>]+>/g, '')).join('')).trim();
      if (text) out.push({ text, title });
    }
  }
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
  const presentation = await read('ppt/presentation.xml');
  const rels = await read('ppt/_rels/presentation.xml.rels');
  const targets = new Map([...(rels ?? '').matchAll(/<Relationship [^>]*Id="([^"]+)"[^>]*Target="([^"]+)"/g)].map((m) => [m[1]!, `ppt/${m[2]!.replace(/^\//, '').replace(/^ppt\//, '')}`]));
  let slides = [...(presentation ?? '').matchAll(/<p:sldId [^>]*r:id="([^"]+)"/g)].map((m) => targets.get(m[1]!)).filter((p): p is string => !!p && !!zip.file(p));
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
    const slideRels = (await read(path.replace(/slides\/(slide\d+\.xml)$/, 'slides/_rels/$1.rels'))) ?? '';
    const notesPath = /Target="\.\.\/notesSlides\/(notesSlide\d+\.xml)"/.exec(slideRels)?.[1];
    const notes = notesPath ? paragraphs((await read(`ppt/notesSlides/${notesPath}`)) ?? '').filter((p) => !/^\d+$/.test(p.text)).map((p) => p.text) : [];
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
