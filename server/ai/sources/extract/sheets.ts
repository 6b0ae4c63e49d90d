// Workbooks as the extractors give them back, whatever the file format: one
// markdown table per sheet (its first row as header, pipes escaped), a
// sheet per page, a heading and a table element each.
import type { Element, Extracted } from './types.ts';

export type Sheet = { name: string; rows: string[][] };

const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** A cell value as text: dates as ISO dates (with the time only when there is one). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export function sheetsExtracted(sheets: Sheet[]): Omit<Extracted, 'engine'> {
  const tables: string[] = [];
  const elements: Element[] = [];
  const pages = sheets.map((sheet, i) => {
    const width = Math.max(1, ...sheet.rows.map((r) => r.length));
    const pad = (r: string[]) => Array.from({ length: width }, (_, k) => escape(r[k] ?? ''));
    const [head, ...body] = sheet.rows;
    const table = sheet.rows.length === 0 ? '' : [`| ${pad(head!).join(' | ')} |`, `| ${Array(width).fill('---').join(' | ')} |`, ...body.map((r) => `| ${pad(r).join(' | ')} |`)].join('\n');
    tables.push(`## ${sheet.name}\n\n${table || '(empty sheet)'}`);
    elements.push({ page: i + 1, type: 'heading', level: 2, text: sheet.name });
    if (table) elements.push({ page: i + 1, type: 'table', text: table });
    return sheet.rows.map((r) => r.join('\t')).join('\n');
  });
  return { markdown: tables.join('\n\n'), text: pages.map((p, i) => `${sheets[i]!.name}\n${p}`).join('\n\n'), pages, elements, images: [] };
}
