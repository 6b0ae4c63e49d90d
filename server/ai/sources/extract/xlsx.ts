// .xlsx: exceljs, formulas as their results, dates as dates; each sheet a
// page and a markdown table (sheets.ts).
import ExcelJS from 'exceljs';
import { cellText, sheetsExtracted, type Sheet } from './sheets.ts';
import { checkZip } from './zip.ts';
import { type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';


function valueText(v: ExcelJS.CellValue): string {
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('result' in v) return valueText(v.result as ExcelJS.CellValue);
    if ('text' in v) return String(v.text);
    if ('error' in v) return String(v.error);
  }
  return cellText(v);
}

export const xlsx: Extractor = async (bytes, progress) => {
  await checkZip(bytes);
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new Failure(`Not a readable XLSX file: ${(err as Error).message}`);
  }
  const sheets: Sheet[] = [];
  for (const [i, ws] of book.worksheets.entries()) {
    const rows: string[][] = [];
    ws.eachRow({ includeEmpty: false }, (row) => {
      const values: string[] = [];
      for (let c = 1; c <= ws.columnCount; c++) values.push(valueText(row.getCell(c).value));
      rows.push(values);
    });
    sheets.push({ name: ws.name, rows });
    await progress(i + 1, book.worksheets.length);
  }
  return { engine: 'text', ...sheetsExtracted(sheets) };
};
