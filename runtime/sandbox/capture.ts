// Capturing one output stream of a sandbox run: every byte is counted and hashed, but only a
// bounded head and tail are kept, so 200 MB of output costs the host a few kilobytes of memory.
// Decoding cuts at UTF-8 character boundaries so a kept slice never starts or ends mid-character.
import { createHash, type Hash } from 'node:crypto';

export interface CapturedStream {
  text: string;
  bytes: number;
  sha256: string;
  truncated: boolean;
}

export class StreamCapture {
  private readonly hash: Hash = createHash('sha256');
  private readonly headCap: number;
  private readonly tailCap: number;
  private head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(capBytes: number) {
    this.headCap = Math.ceil(capBytes / 2);
    this.tailCap = Math.floor(capBytes / 2);
  }

  write(chunk: Buffer): void {
    this.hash.update(chunk);
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headCap) {
      const take = Math.min(this.headCap - this.headLength, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailCap === 0) return;
    // Copy: the chunk's backing buffer may be large and must not be retained.
    this.tail.push(Buffer.from(rest));
    this.tailLength += rest.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0]!.length >= this.tailCap) {
      this.tailLength -= this.tail.shift()!.length;
    }
  }

  result(): CapturedStream {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailCap) tail = tail.subarray(tail.length - this.tailCap);
    const dropped = this.total - head.length - tail.length;
    const sha256 = this.hash.copy().digest('hex');
    if (dropped === 0) {
      return {
        text: Buffer.concat([head, tail]).toString('utf8'),
        bytes: this.total,
        sha256,
        truncated: false,
      };
    }
    const text =
      head.subarray(0, utf8Boundary(head, head.length)).toString('utf8') +
      `\n[... ${dropped} bytes not kept ...]\n` +
      tail.subarray(skipContinuation(tail)).toString('utf8');
    return { text, bytes: this.total, sha256, truncated: true };
  }
}

/** The largest index ≤ end that does not split a multi-byte UTF-8 character. */
function utf8Boundary(buf: Buffer, end: number): number {
  let i = end;
  // Walk back over at most 3 continuation bytes to the lead byte; keep it only if complete.
  while (i > 0 && i > end - 4 && (buf[i - 1]! & 0xc0) === 0x80) i--;
  if (i === 0) return end;
  const lead = buf[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - (i - 1) >= need ? end : i - 1;
}

function skipContinuation(buf: Buffer): number {
  let i = 0;
  while (i < buf.length && i < 3 && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}
