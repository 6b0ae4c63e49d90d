// chunk_embed's chunker (server/ai/knowledge/chunking.ts) on elements whose
// right chunks are known: a chunk starts at a heading and carries the
// headings above it, never crosses a page, keeps a table whole when it fits
// and splits a longer one by rows with the header repeated, shares `overlap`
// tokens with the previous chunk when a section is cut for size, and never
// goes over `chunk_size` tokens (counted with the real tokenizer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode, encode } from 'gpt-tokenizer';
import { chunkElements } from '../../server/ai/knowledge/chunking.ts';
import type { Element } from '../../server/ai/sources/extract/types.ts';

const para = (page: number, text: string): Element => ({ page, type: 'paragraph', text });
const sentence = (n: number) => `Sentence number ${n} talks about the fuel pumps of the second stage engine in some detail.`;

describe('chunking', () => {
  it('starts chunks at headings with their heading path, and never crosses a page', () => {
    const chunks = chunkElements([
      { page: 1, type: 'heading', level: 1, text: 'Engines' }, para(1, 'Engines burn fuel.'),
      { page: 1, type: 'heading', level: 2, text: 'Pumps' }, para(1, 'Pumps feed them.'),
      para(2, 'Page two goes on about pumps.'),
      { page: 2, type: 'heading', level: 1, text: 'Tanks' }, para(2, 'Tanks hold fuel.'),
    ], { chunkSize: 200, overlap: 20 });
    assert.deepEqual(chunks.map((c) => [c.meta.page, c.meta.headings, c.text]), [
      [1, ['Engines'], 'Engines\n\nEngines burn fuel.'],
      [1, ['Engines', 'Pumps'], 'Pumps\n\nPumps feed them.'],
      [2, ['Engines', 'Pumps'], 'Page two goes on about pumps.'],
      [2, ['Tanks'], 'Tanks\n\nTanks hold fuel.'],
    ]);
    assert.deepEqual(chunks.map((c) => c.meta.chunk_index), [0, 1, 2, 3]);
  });

  it('keeps a table that fits whole, and splits a longer one by rows with its header', () => {
    const rows = (n: number) => ['| stage | thrust |', '| --- | --- |', ...Array.from({ length: n }, (_, i) => `| S${i} | ${1000 + i} kN |`)].join('\n');
    const small = rows(4);
    const whole = chunkElements([para(1, 'Before the table.'), { page: 1, type: 'table', text: small }, para(1, 'After it.')], { chunkSize: 60, overlap: 10 });
    assert.ok(whole.some((c) => c.text.includes(small)), 'the table is in one chunk');

    const big = rows(60);
    const split = chunkElements([{ page: 1, type: 'table', text: big }], { chunkSize: 64, overlap: 10 });
    assert.ok(split.length > 3);
    for (const c of split) {
      assert.ok(c.text.startsWith('| stage | thrust |\n| --- | --- |\n'), 'each piece repeats the header');
      assert.ok(c.tokens <= 64, `${c.tokens} tokens`);
    }
    const bodyRows = split.flatMap((c) => c.text.split('\n').slice(2));
    assert.deepEqual(bodyRows, big.split('\n').slice(2), 'every row once, in order');
  });

  it('cuts a long section at chunk_size and carries the last `overlap` tokens into the next chunk', () => {
    const elements = Array.from({ length: 12 }, (_, i) => para(1, sentence(i)));
    const chunks = chunkElements(elements, { chunkSize: 64, overlap: 16 });
    assert.ok(chunks.length >= 4);
    for (const c of chunks) assert.ok(c.tokens <= 64, `${c.tokens} tokens`);
    for (let i = 1; i < chunks.length; i++) {
      const carried = decode(encode(chunks[i - 1]!.text).slice(-16)).trimStart();
      assert.ok(chunks[i]!.text.startsWith(carried), `chunk ${i} opens with the end of chunk ${i - 1}`);
    }
    for (let i = 0; i < 12; i++) assert.ok(chunks.some((c) => c.text.includes(sentence(i))), `sentence ${i} is kept whole somewhere`);
  });

  it('splits one paragraph longer than chunk_size at sentence ends', () => {
    const long = Array.from({ length: 10 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkElements([para(3, long)], { chunkSize: 50, overlap: 0 });
    assert.ok(chunks.length >= 4);
    assert.ok(chunks.every((c) => c.tokens <= 50 && c.meta.page === 3));
    assert.ok(chunks.every((c) => /\.$/.test(c.text)), 'each piece ends at a sentence end');
  });
});
