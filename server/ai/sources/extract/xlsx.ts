// .xlsx: one markdown table per sheet (the first row as its header), dates
// as dates, formulas as their results; each sheet is a page.
import ExcelJS from 'exceljs';
import { zipEntriesSize } from './zip.ts';
import { Unreadable, type Element, type Extractor } from './types.ts';

const MAX_INFLATED = 512 * 1024 * 1024;

function cellText(v: ExcelJS.CellValue): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  if (typeof v === 'object') {
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('result' in v) return cellText(v.result as ExcelJS.CellValue);
    if ('text' in v) return String(v.text);
    if ('error' in v) return String(v.error);
    return JSON.stringify(v);
  }
  return String(v);
}

const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export const xlsx: Extractor = async (bytes, progress) => {
  const inflated = zipEntriesSize(bytes);
  if (inflated > MAX_INFLATED) throw new Unreadable(`The workbook would inflate to ${Math.round(inflated / 1024 / 1024)} MB, more than ${MAX_INFLATED / 1024 / 1024} MB`);
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new Unreadable(`Not a readable XLSX file: ${(err as Error).message}`);
  }
  const sheets = book.worksheets;
  const pages: string[] = [];
  const tables: string[] = [];
  const elements: Element[] = [];
  for (const [i, sheet] of sheets.entries()) {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values: string[] = [];
      for (let c = 1; c <= sheet.columnCount; c++) values.push(cellText(row.getCell(c).value));
      rows.push(values);
    });
    const width = Math.max(1, ...rows.map((r) => r.length));
    const pad = (r: string[]) => Array.from({ length: width }, (_, k) => escape(r[k] ?? ''));
    const [head, ...body] = rows;
    const table = rows.length === 0 ? '' : [`| ${pad(head!).join(' | ')} |`, `| ${Array(width).fill('---').join(' | ')} |`, ...body.map((r) => `| ${pad(r).join(' | ')} |`)].join('\n');
    tables.push(`## ${sheet.name}\n\n${table || '(empty sheet)'}`);
    pages.push(rows.map((r) => r.join('\t')).join('\n'));
    elements.push({ page: i + 1, type: 'heading', level: 2, text: sheet.name });
    if (table) elements.push({ page: i + 1, type: 'table', text: table });
    await progress(i + 1, sheets.length);
  }
  const markdown = tables.join('\n\n');
  return { engine: 'text', markdown, text: pages.map((p, i) => `${sheets[i]!.name}\n${p}`).join('\n\n'), pages, elements, images: [] };
};
