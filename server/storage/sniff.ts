// The type of a file from its first bytes, so a bucket's allow-list holds
// against what the bytes are, not only against the label a client put on
// them (an HTML page uploaded as image/png is caught here). Only types that
// matter for that decision are recognised; unknown bytes detect nothing.
import { PassThrough, type Readable } from 'node:stream';

/** How many first bytes decide the type. */
export const HEAD_BYTES = 512;

export function detectType(head: Buffer): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'application/zip';
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (/^<svg[\s>]/.test(text) || (/^<\?xml/.test(text) && text.includes('<svg'))) return 'image/svg+xml';
  if (/^<(!doctype html|html|head|body|script|iframe)[\s>]/.test(text)) return 'text/html';
  return undefined;
}

/** Passes a stream through unchanged and detects its type from the first bytes. */
export function sniff(input: Readable): { stream: Readable; detected: () => string | undefined } {
  const chunks: Buffer[] = [];
  let seen = 0;
  const out = new PassThrough();
  input.on('data', (chunk: Buffer) => {
    if (seen < HEAD_BYTES) {
      chunks.push(chunk);
      seen += chunk.length;
    }
  });
  input.on('error', (err) => out.destroy(err));
  input.pipe(out);
  return { stream: out, detected: () => detectType(Buffer.concat(chunks).subarray(0, HEAD_BYTES)) };
}
