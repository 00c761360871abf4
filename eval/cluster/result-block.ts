// How a Swarm job's result crosses back to `ab` without a shared filesystem (docs/scale.md): the job
// prints one framed block on stdout, and `ab` reads the service's logs from the manager. The payload
// is gzipped JSON in base64 lines; the header names its byte length and sha256, so a block cut short
// (a job killed while printing, a log driver that dropped lines) or altered is refused, never read
// as a result. Everything else the job prints is ignored.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

const BEGIN = '-----BEGIN PIPER RESULT';
const END = '-----END PIPER RESULT-----';
const LINE = 76;

/** The block for `value`: header, base64 lines, footer; ends with a newline. */
export function encodeResultBlock(value: unknown): string {
  const payload = gzipSync(Buffer.from(JSON.stringify(value), 'utf8'));
  const sha = createHash('sha256').update(payload).digest('hex');
  const text = payload.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += LINE) lines.push(text.slice(i, i + LINE));
  return `${BEGIN} bytes=${payload.length} sha256=${sha}-----\n${lines.join('\n')}\n${END}\n`;
}

type ResultRead = { ok: true; value: unknown } | { ok: false; reason: string };

/** The one valid block in `log` (the last one when a job printed several), or why there is none. */
export function decodeResultBlock(log: string): ResultRead {
  const lines = log.split(/\r?\n/);
  const start = lines.findLastIndex((l) => l.startsWith(BEGIN));
  if (start < 0) return { ok: false, reason: 'the job printed no result block' };
  const header = /bytes=(\d+) sha256=([0-9a-f]{64})-----$/.exec(lines[start]!);
  if (!header) return { ok: false, reason: 'the result block has a malformed header' };
  const end = lines.indexOf(END, start + 1);
  if (end < 0) return { ok: false, reason: 'the result block is cut short (no end line)' };
  const payload = Buffer.from(lines.slice(start + 1, end).join(''), 'base64');
  if (payload.length !== Number(header[1]))
    return {
      ok: false,
      reason: `the result block holds ${payload.length} bytes, its header says ${header[1]}`,
    };
  if (createHash('sha256').update(payload).digest('hex') !== header[2])
    return { ok: false, reason: 'the result block fails its checksum' };
  try {
    return { ok: true, value: JSON.parse(gunzipSync(payload).toString('utf8')) as unknown };
  } catch (error) {
    return { ok: false, reason: `the result block does not decode: ${(error as Error).message}` };
  }
}
