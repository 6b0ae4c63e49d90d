// The images and files of a request's last message, read from its content
// parts as OpenAI's clients send them:
//   {type: "image_url", image_url: {url, detail}}   a data URL, or an http(s)
//                                                   URL fetched through the
//                                                   outbound guard
//   {type: "file", file: {file_data, filename}}     a data URL (no file_id:
//                                                   there is no Files API)
// Bounded before anything is stored: at most ATTACHMENTS_MAX, each at most
// ATTACHMENT_MAX_BYTES and all at most ATTACHMENTS_MAX_TOTAL_BYTES, of the types a vision or document model reads, and
// an image's bytes must be the image its type says (checked by signature).
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_MAX, ATTACHMENTS_MAX_TOTAL_BYTES, type Incoming } from '../agents/attachments.ts';
import { aiApiError, aiErrors } from '../errors.ts';
import { readCapped } from '../runtime/net/ssrf.ts';
import type { ChatMessageBody } from './messages.ts';

const IMAGE_SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};
const FILE_TYPES: Record<string, ((b: Buffer) => boolean) | undefined> = {
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  'text/plain': undefined, 'text/markdown': undefined, 'text/csv': undefined, 'application/json': undefined,
};
const MB = ATTACHMENT_MAX_BYTES / 1024 / 1024;

/** A data URL's type and bytes (base64 only), bounded. */
function dataUrl(url: string, where: string): { mime: string; data: Buffer } {
  const m = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[a-z0-9=.+-]+)*;base64,([A-Za-z0-9+/=\s]*)$/i.exec(url.slice(0, ATTACHMENT_MAX_BYTES * 2));
  if (!m) throw aiErrors.validation(`${where}: a data URL (data:<type>;base64,...) or an http(s) URL is expected`);
  if (m[2]!.length > Math.ceil((ATTACHMENT_MAX_BYTES * 4) / 3) + 4) throw tooLarge(where);
  return { mime: m[1]!.toLowerCase(), data: Buffer.from(m[2]!, 'base64') };
}
const tooLarge = (where: string) => aiApiError('PAYLOAD_TOO_LARGE', `${where} is larger than ${MB} MB`);

/** The bytes are what their type says, of a type a model reads; else 400. */
function checked(kind: 'image' | 'file', mime: string, data: Buffer, where: string): void {
  if (data.length > ATTACHMENT_MAX_BYTES) throw tooLarge(where);
  if (data.length === 0) throw aiErrors.validation(`${where} is empty`);
  const check = kind === 'image' ? IMAGE_SIGNATURES[mime] : FILE_TYPES[mime];
  if (kind === 'image' && !check) throw aiErrors.validation(`${where}: an image must be PNG, JPEG, GIF or WebP (got ${mime})`);
  if (kind === 'file' && !(mime in FILE_TYPES)) throw aiErrors.validation(`${where}: a file must be PDF, plain text, Markdown, CSV or JSON (got ${mime})`);
  if (check && !check(data)) throw aiErrors.validation(`${where}: its bytes are not ${mime}`);
}

/**
 * The last message's text and attachments. `fetchRemote` is the outbound
 * guard's fetch: a remote image is read through it (private addresses
 * refused unless HTTP_ALLOW_PRIVATE_NETWORKS), at most 15 seconds.
 */
export async function messageParts(m: ChatMessageBody, i: number, fetchRemote: typeof fetch): Promise<{ text: string; incoming: Incoming[] }> {
  if (typeof m.content === 'string' || m.content == null) return { text: m.content ?? '', incoming: [] };
  const texts: string[] = [];
  const incoming: Incoming[] = [];
  for (const [n, part] of m.content.entries()) {
    const where = `messages[${i}].content[${n}]`;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'image_url' || part.type === 'file') {
      if (incoming.length >= ATTACHMENTS_MAX) throw aiErrors.validation(`messages[${i}]: at most ${ATTACHMENTS_MAX} images and files in one message`);
      incoming.push(part.type === 'image_url' ? await image(part as { image_url?: unknown }, where, fetchRemote) : file(part as { file?: unknown }, where));
    } else throw aiErrors.validation(`${where}: parts of type ${String(part.type)} are not supported (text, image_url and file are)`);
  }
  if (incoming.reduce((n, a) => n + a.data.length, 0) > ATTACHMENTS_MAX_TOTAL_BYTES) throw aiApiError('PAYLOAD_TOO_LARGE', `messages[${i}]: its images and files are larger than ${ATTACHMENTS_MAX_TOTAL_BYTES / 1024 / 1024} MB together`);
  return { text: texts.join(''), incoming };
}

async function image(part: { image_url?: unknown }, where: string, fetchRemote: typeof fetch): Promise<Incoming> {
  const spec = part.image_url as { url?: unknown; detail?: unknown } | undefined;
  if (!spec || typeof spec.url !== 'string') throw aiErrors.validation(`${where}: image_url.url is required`);
  const detail = spec.detail === 'low' || spec.detail === 'high' || spec.detail === 'auto' ? spec.detail : undefined;
  let got: { mime: string; data: Buffer };
  if (/^https?:\/\//i.test(spec.url)) got = await remote(spec.url, where, fetchRemote);
  else got = dataUrl(spec.url, where);
  checked('image', got.mime, got.data, where);
  return { type: 'image', mime: got.mime, data: got.data, ...(detail ? { detail } : {}) };
}

function file(part: { file?: unknown }, where: string): Incoming {
  const spec = part.file as { file_data?: unknown; filename?: unknown; file_id?: unknown } | undefined;
  if (spec && spec.file_id !== undefined) throw aiErrors.validation(`${where}: file_id is not supported here (there is no Files API): send file_data`);
  if (!spec || typeof spec.file_data !== 'string') throw aiErrors.validation(`${where}: file.file_data is required (a data URL)`);
  const got = dataUrl(spec.file_data, where);
  checked('file', got.mime, got.data, where);
  const filename = typeof spec.filename === 'string' && spec.filename ? spec.filename.slice(0, 200) : undefined;
  return { type: 'file', mime: got.mime, data: got.data, ...(filename ? { filename } : {}) };
}

async function remote(url: string, where: string, fetchRemote: typeof fetch): Promise<{ mime: string; data: Buffer }> {
  try {
    const res = await fetchRemote(url, { signal: AbortSignal.timeout(15_000), redirect: 'follow' });
    if (!res.ok) throw new Error(`it answered ${res.status}`);
    const mime = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    return { mime, data: await readCapped(res, ATTACHMENT_MAX_BYTES) };
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw aiErrors.validation(`${where}: the image could not be fetched: ${cause ?? (err as Error).message}`);
  }
}
