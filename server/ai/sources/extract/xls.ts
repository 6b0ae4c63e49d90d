// .xls (the binary Excel format): SheetJS, as republished by @e965/xlsx (the
// `xlsx` package on npm is an old version with known advisories). Dates as
// dates; each sheet a page and a markdown table (sheets.ts).
import * as XLSX from '@e965/xlsx';
import { cellText, sheetsExtracted, type Sheet } from './sheets.ts';
import { type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

export const xls: Extractor = async (bytes, progress) => {
  let book: XLSX.WorkBook;
  try {
    book = XLSX.read(bytes, { type: 'buffer', cellDates: true, dense: true });
  } catch (err) {
    throw new Failure(`Not a readable XLS file: ${(err as Error).message}`);
  }
  if (book.SheetNames.length === 0) throw new Failure('Not a readable XLS file: it has no sheets');
  const sheets: Sheet[] = [];
  for (const [i, name] of book.SheetNames.entries()) {
    const rows = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets[name]!, { header: 1, raw: true, blankrows: false, defval: null });
    sheets.push({ name, rows: rows.map((r) => r.map(cellText)) });
    await progress(i + 1, book.SheetNames.length);
  }
  return { engine: 'text', ...sheetsExtracted(sheets) };
};
