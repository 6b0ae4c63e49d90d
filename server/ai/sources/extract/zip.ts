// Zip bombs, caught while inflating: before a parser opens a zip-based file
// (DOCX, XLSX, PPTX), every entry is inflated once as a stream and its bytes
// counted, per part and in total, with the compression ratio of each large
// part; nothing is kept and no declared size is trusted (a zip may declare
// 1 KB and inflate to 1 GB). The first limit passed ends the check.
import zlib from 'node:zlib';
import { Failure } from '../../failures.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export type ZipLimits = {
  /** One part (a file inside the zip), inflated. */
  maxPartBytes: number;
  /** All parts together, inflated. */
  maxTotalBytes: number;
  /** Inflated over compressed bytes, checked for parts past ratioFloorBytes (small parts compress wildly). */
  maxRatio: number;
  ratioFloorBytes: number;
  maxEntries: number;
};

export const ZIP_LIMITS: ZipLimits = { maxPartBytes: 128 * 1024 ** 2, maxTotalBytes: 512 * 1024 ** 2, maxRatio: 200, ratioFloorBytes: 4 * 1024 ** 2, maxEntries: 20_000 };

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

type Entry = { name: string; method: number; compressed: number; localOffset: number };

function entriesOf(bytes: Buffer, limits: ZipLimits): Entry[] {
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Failure('Not a zip-based Office file (no central directory)');
  const count = bytes.readUInt16LE(eocd + 10);
  if (count > limits.maxEntries) throw new Failure(`The file holds ${count} parts, more than ${limits.maxEntries}`);
  let at = bytes.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw new Failure('The zip directory is damaged');
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      name: bytes.toString('utf8', at + 46, Math.min(bytes.length, at + 46 + nameLength)),
      method: bytes.readUInt16LE(at + 10),
      compressed: bytes.readUInt32LE(at + 20),
      localOffset: bytes.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

/** Inflates one part as a stream, counting; rejects at the first limit passed. */
function inflatedSize(data: Buffer, name: string, budget: number, limits: ZipLimits): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = zlib.createInflateRaw();
    let size = 0;
    const fail = (message: string) => {
      inflate.destroy();
      reject(new Failure(message));
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxPartBytes) return fail(`The part ${name} inflates past ${mb(limits.maxPartBytes)} (a zip bomb?)`);
      if (size > budget) return fail(`The file inflates past ${mb(limits.maxTotalBytes)} in all (a zip bomb?)`);
      if (size > limits.ratioFloorBytes && size / Math.max(1, data.length) > limits.maxRatio) {
        return fail(`The part ${name} inflates more than ${limits.maxRatio} times its stored size (a zip bomb?)`);
      }
    });
    inflate.on('error', (err) => reject(new Failure(`The part ${name} cannot be inflated: ${err.message}`)));
    inflate.on('end', () => resolve(size));
    inflate.end(data);
  });
}

/** Checks a zip by inflating every part once; answers the inflated total. Throws Failure at the first limit passed. */
export async function checkZip(bytes: Buffer, limits: ZipLimits = ZIP_LIMITS): Promise<number> {
  let total = 0;
  for (const e of entriesOf(bytes, limits)) {
    if (e.localOffset + 30 > bytes.length || bytes.readUInt32LE(e.localOffset) !== LOCAL) throw new Failure(`The part ${e.name} is missing from the file`);
    const start = e.localOffset + 30 + bytes.readUInt16LE(e.localOffset + 26) + bytes.readUInt16LE(e.localOffset + 28);
    // The stored span is bounded by the file itself, whatever the directory says.
    const data = bytes.subarray(start, Math.min(bytes.length, start + e.compressed));
    if (e.method === 0) {
      total += data.length;
      if (data.length > limits.maxPartBytes) throw new Failure(`The part ${e.name} is larger than ${mb(limits.maxPartBytes)}`);
    } else if (e.method === 8) {
      total += await inflatedSize(data, e.name, limits.maxTotalBytes - total, limits);
    } else throw new Failure(`The part ${e.name} uses a compression method (${e.method}) Office files do not use`);
    if (total > limits.maxTotalBytes) throw new Failure(`The file inflates past ${mb(limits.maxTotalBytes)} in all (a zip bomb?)`);
  }
  return total;
}
