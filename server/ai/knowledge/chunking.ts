// Token-aware chunking of a document's elements (the `elements` derivative
// extraction made): chunks of at most `chunkSize` tokens that never cross a
// page, start at a heading (which they carry, with the headings above it, in
// `meta.headings`), keep a table whole when it fits (else split by rows, the
// header repeated), and share `overlap` tokens with the previous chunk when a
// section was cut for size. Token counts come from a real tokenizer.
import { lazy } from '../runtime/lazy.ts';

const tokenizer = lazy<typeof import('gpt-tokenizer')>('gpt-tokenizer');
const encode = (text: string) => tokenizer().encode(text);
const decode = (tokens: number[]) => tokenizer().decode(tokens);
import type { Element } from '../sources/extract/types.ts';

export type Chunk = {
  text: string;
  tokens: number;
  meta: { page: number; headings: string[]; element_types: string[]; bbox?: [number, number, number, number]; chunk_index: number; token_count: number };
};

export const countTokens = (text: string): number => encode(text).length;

/** The last `n` tokens of a text (the overlap carried into the next chunk). */
function tail(text: string, n: number): string {
  if (n <= 0) return '';
  const tokens = encode(text);
  return tokens.length <= n ? text : decode(tokens.slice(-n));
}

/** A text longer than `size` tokens as windows of `size` sharing `overlap`, cut at sentence ends where possible. */
function windows(text: string, size: number, overlap: number): string[] {
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+|\n+|$)\s*/g) ?? [text];
  const out: string[] = [];
  let current = '';
  for (const s of sentences) {
    if (countTokens(s) > size) {
      if (current) out.push(current);
      const tokens = encode(s);
      for (let i = 0; i < tokens.length; i += Math.max(1, size - overlap)) out.push(decode(tokens.slice(i, i + size)));
      current = '';
      continue;
    }
    if (current && countTokens(current + s) > size) {
      out.push(current);
      current = tail(current, overlap) + s;
      if (countTokens(current) > size) current = s;
    } else current += s;
  }
  if (current.trim()) out.push(current);
  return out.map((t) => t.trim()).filter(Boolean);
}

/** A markdown table longer than `size` tokens as pieces of whole rows, each with the header rows. */
function tablePieces(table: string, size: number): string[] {
  const rows = table.split('\n');
  const header = rows.slice(0, rows[1]?.startsWith('|') && /^[|\s:-]+$/.test(rows[1]) ? 2 : 1);
  const body = rows.slice(header.length);
  const out: string[] = [];
  let piece: string[] = [];
  for (const row of body) {
    if (piece.length && countTokens([...header, ...piece, row].join('\n')) > size) {
      out.push([...header, ...piece].join('\n'));
      piece = [];
    }
    piece.push(row);
  }
  if (piece.length || !out.length) out.push([...header, ...piece].join('\n'));
  return out.flatMap((p) => (countTokens(p) > size ? windows(p, size, 0) : [p]));
}

export function chunkElements(elements: Element[], opts: { chunkSize: number; overlap: number }): Chunk[] {
  const size = Math.max(16, opts.chunkSize);
  const overlap = Math.min(Math.max(0, opts.overlap), Math.floor(size / 2));
  const chunks: Chunk[] = [];
  const headings: Array<{ level: number; text: string }> = [];
  let parts: Element[] = [];
  let carry = '';
  let page = elements[0]?.page ?? 1;

  const textOf = (els: Element[]) => els.map((e, i) => (i > 0 ? (e.bbox && els[i - 1]!.bbox ? '\n' : '\n\n') : '') + e.text).join('');
  const emit = (text: string, els: Element[]) => {
    const body = text.trim();
    if (!body) return;
    const boxes = els.map((e) => e.bbox).filter((b): b is [number, number, number, number] => !!b);
    const tokens = countTokens(body);
    chunks.push({
      text: body, tokens,
      meta: {
        page, headings: headings.map((h) => h.text), element_types: [...new Set(els.map((e) => e.type))], chunk_index: chunks.length, token_count: tokens,
        ...(boxes.length ? { bbox: [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))] } : {}),
      },
    });
  };
  /** Ends the chunk; `cut` says it ended for size, so the next one starts with the overlap. */
  const flush = (cut: boolean) => {
    if (parts.some((p) => p.type !== 'heading')) {
      const text = textOf(parts);
      emit(carry ? `${carry} ${text}` : text, parts);
      carry = cut ? tail(text, overlap) : '';
      parts = [];
    } else if (!cut) carry = '';
  };

  for (const el of elements) {
    if (!el.text.trim()) continue;
    if (el.page !== page) {
      flush(false);
      parts = [];
      page = el.page;
    }
    if (el.type === 'heading') {
      flush(false);
      const level = el.level ?? 1;
      while (headings.length && headings[headings.length - 1]!.level >= level) headings.pop();
      headings.push({ level, text: el.text.trim() });
      parts = [el];
      continue;
    }
    const tokens = countTokens(el.text);
    if (tokens > size) {
      flush(true);
      const pieces = el.type === 'table' ? tablePieces(el.text, size) : windows(el.text, size, overlap);
      for (const p of pieces) emit(p, [el]);
      carry = el.type === 'table' ? '' : tail(pieces[pieces.length - 1] ?? '', overlap);
      continue;
    }
    if (parts.length && countTokens(textOf([...parts, el])) + countTokens(carry) > size) flush(el.type !== 'table');
    parts.push(el);
  }
  flush(false);
  return chunks;
}

/** Elements of a text with no elements derivative: its paragraphs, on page 1. */
export function textElements(text: string): Element[] {
  return text.split(/\n{2,}/).map((t) => t.trim()).filter(Boolean).map((t) => ({ page: 1, type: 'paragraph' as const, text: t }));
}
