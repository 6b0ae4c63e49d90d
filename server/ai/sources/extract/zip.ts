// The total uncompressed size a zip's central directory declares, read
// without inflating anything: how OOXML files (DOCX, XLSX, PPTX) are checked
// for zip bombs before a parser opens them.
import { Unreadable } from './types.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

export function zipEntriesSize(bytes: Buffer): number {
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Unreadable('Not a zip-based Office file (no central directory)');
  const entries = bytes.readUInt16LE(eocd + 10);
  let at = bytes.readUInt32LE(eocd + 16);
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw new Unreadable('The zip directory is damaged');
    total += bytes.readUInt32LE(at + 24);
    at += 46 + bytes.readUInt16LE(at + 28) + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return total;
}
