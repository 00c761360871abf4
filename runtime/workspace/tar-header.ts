// The 512-byte ustar header of one tar entry, with a PAX extended header first when a name or a
// link target does not fit ustar's fields. Written here rather than through a tar library because
// a snapshot of 100,000 small files is mostly headers: building them as plain buffers keeps the
// packing at a few microseconds per file.

export interface TarEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  size?: number;
  /** Seconds since the epoch. */
  mtime?: number;
  linkname?: string;
}

const BLOCK = 512;
const TYPE = { file: '0', directory: '5', symlink: '2' } as const;

/** The header block(s) for `entry`: a PAX record block set when needed, then the ustar header. */
export function tarHeader(entry: TarEntry): Buffer {
  const name = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const split = splitName(name);
  const link = entry.linkname ?? '';
  const pax: Record<string, string> = {};
  if (!split) pax.path = name;
  if (Buffer.byteLength(link) > 100) pax.linkpath = link;
  const header = ustar({
    name: split?.name ?? truncate(name, 100),
    prefix: split?.prefix ?? '',
    type: TYPE[entry.type],
    mode: entry.mode,
    size: entry.size ?? 0,
    mtime: entry.mtime ?? 0,
    linkname: truncate(link, 100),
  });
  if (Object.keys(pax).length === 0) return header;
  const body = paxBody(pax);
  return Buffer.concat([
    ustar({
      name: 'PaxHeader',
      prefix: '',
      type: 'x',
      mode: 0o644,
      size: body.length,
      mtime: 0,
      linkname: '',
    }),
    body,
    Buffer.alloc(padding(body.length)),
    header,
  ]);
}

/** Zero bytes after a file's content up to the next 512-byte boundary. */
export function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** The two zero blocks that end an archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

function ustar(h: {
  name: string;
  prefix: string;
  type: string;
  mode: number;
  size: number;
  mtime: number;
  linkname: string;
}): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, 'utf8');
  b.write(octal(h.mode & 0o7777, 7), 100, 'ascii');
  b.write(octal(0, 7), 108, 'ascii');
  b.write(octal(0, 7), 116, 'ascii');
  b.write(octal(h.size, 11), 124, 'ascii');
  b.write(octal(Math.floor(h.mtime), 11), 136, 'ascii');
  b.write(h.type, 156, 'ascii');
  b.write(h.linkname, 157, 100, 'utf8');
  b.write('ustar\u000000', 257, 'ascii');
  b.write(h.prefix, 345, 155, 'utf8');
  // The checksum is computed with its own field as spaces.
  b.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += b[i]!;
  b.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'ascii');
  return b;
}

function octal(value: number, digits: number): string {
  return `${value.toString(8).padStart(digits, '0')}\u0000`;
}

/** ustar's name/prefix split at a '/', or null when the name cannot fit (PAX then carries it). */
function splitName(name: string): { name: string; prefix: string } | null {
  if (Buffer.byteLength(name) <= 100) return { name, prefix: '' };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '')
      return { name: rest, prefix };
  }
  return null;
}

function truncate(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  return buf.length <= bytes ? text : buf.subarray(0, bytes).toString('utf8');
}

/** PAX records `LEN key=value\n`, where LEN counts the whole record, its own digits included. */
function paxBody(fields: Record<string, string>): Buffer {
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    const rest = ` ${key}=${value}\n`;
    const restBytes = Buffer.byteLength(rest);
    let len = restBytes + String(restBytes).length;
    if (String(len).length + restBytes !== len) len = restBytes + String(len).length;
    out += `${len}${rest}`;
  }
  return Buffer.from(out, 'utf8');
}
