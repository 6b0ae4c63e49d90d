// .docx: mammoth to HTML (so tables survive), then markdown. Embedded images
// are kept as image derivatives. A zip whose entries would inflate past the
// limit is refused before mammoth opens it (a zip bomb).
import mammoth from 'mammoth';
import { checkZip } from './zip.ts';
import { htmlToMarkdown, markdownElements, markdownToText } from './markdown.ts';
import { type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';


export const docx: Extractor = async (bytes, progress) => {
  await checkZip(bytes);
  const images: Array<{ page: number | null; bytes: Buffer; contentType: string }> = [];
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: bytes }, {
      convertImage: mammoth.images.imgElement(async (image) => {
        const data = Buffer.from(await image.read('base64'), 'base64');
        images.push({ page: null, bytes: data, contentType: image.contentType });
        return { src: `image-${images.length - 1}`, alt: `Image ${images.length}` };
      }),
    });
    html = result.value;
  } catch (err) {
    throw new Failure(`Not a readable DOCX file: ${(err as Error).message}`);
  }
  await progress(1, 1);
  const markdown = htmlToMarkdown(html);
  const text = markdownToText(markdown);
  return { engine: 'text', markdown, text, pages: [text], elements: markdownElements(markdown, 1), images };
};
