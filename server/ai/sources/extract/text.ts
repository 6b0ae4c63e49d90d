// .txt and .md: the text as it is (markdown stays markdown; plain text is
// its own markdown), one page.
import { markdownElements, markdownToText } from './markdown.ts';
import { type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

function decode(bytes: Buffer): string {
  if (bytes.includes(0)) throw new Failure('The file is not text (it contains NUL bytes)');
  return bytes.toString('utf8').replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export const plainText: Extractor = async (bytes, progress) => {
  const text = decode(bytes).trim();
  await progress(1, 1);
  return { engine: 'text', markdown: text, text, pages: [text], elements: markdownElements(text, 1), images: [] };
};

export const markdownText: Extractor = async (bytes, progress) => {
  const md = decode(bytes).trim();
  await progress(1, 1);
  const text = markdownToText(md);
  return { engine: 'text', markdown: md, text, pages: [text], elements: markdownElements(md, 1), images: [] };
};
