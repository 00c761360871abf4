// A wheel's METADATA read as data, from the zip itself (its central directory, then the one entry,
// inflated here): a wheel built from an sdist is the distribution's own build output, so nothing of
// it is opened by a Python before piper has read what it requires. Untrusted bytes: any oddity
// (no METADATA, a multi-disk zip, a wrong size) is null.
import { inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const MAX_METADATA = 4 << 20;

export function wheelMetadata(zip: Buffer): string | null {
  const end = findEndOfDirectory(zip);
  if (end < 0) return null;
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count && at + 46 <= zip.length; i++) {
    if (zip.readUInt32LE(at) !== DIRECTORY_ENTRY) return null;
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (/^[^/]+\.dist-info\/METADATA$/.test(name)) return entryText(zip, local, method, compressed, size);
    at += 46 + skip;
  }
  return null;
}

function findEndOfDirectory(zip: Buffer): number {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--)
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  return -1;
}

function entryText(
  zip: Buffer,
  local: number,
  method: number,
  compressed: number,
  size: number,
): string | null {
  if (size > MAX_METADATA || local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL_HEADER) return null;
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const raw = zip.subarray(start, start + compressed);
  try {
    const data =
      method === 0 ? raw : method === 8 ? inflateRawSync(raw, { maxOutputLength: MAX_METADATA }) : null;
    return data && data.length === size ? data.toString('utf8') : null;
  } catch {
    return null;
  }
}

/** The values of one field of a METADATA's header (it ends at the first empty line). */
function headerValues(metadata: string, field: string): string[] {
  const header = metadata.split(/\r?\n\r?\n/)[0] ?? '';
  const prefix = `${field.toLowerCase()}:`;
  return header
    .split(/\r?\n/)
    .filter((l) => l.toLowerCase().startsWith(prefix))
    .map((l) => l.slice(prefix.length).trim())
    .filter(Boolean);
}

/** The Requires-Dist values of a METADATA's header. */
export function requiresDist(metadata: string): string[] {
  return headerValues(metadata, 'Requires-Dist');
}

/** The Provides-Extra values of a METADATA's header. */
export function providedExtras(metadata: string): string[] {
  return headerValues(metadata, 'Provides-Extra');
}
