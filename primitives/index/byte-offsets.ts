// web-tree-sitter reports offsets in UTF-16 code units of the parsed string; the index stores byte
// offsets into the file (Entity.startByte/endByte), so edits can splice the bytes on disk. This
// converts one to the other without re-encoding the whole prefix for every entity.

export class ByteOffsets {
  /** UTF-16 index of each line start, and the byte offset of the same point. */
  private readonly lineStarts: number[] = [];
  private readonly lineBytes: number[] = [];

  /**
   * @param text the decoded file
   * @param oneBytePerUnit true when every code unit is one byte in the file (ASCII text, or a file
   *   decoded as latin-1): offsets are then the same in both units
   */
  constructor(
    private readonly text: string,
    private readonly oneBytePerUnit: boolean,
  ) {
    if (oneBytePerUnit) return;
    let bytes = 0;
    let start = 0;
    for (;;) {
      this.lineStarts.push(start);
      this.lineBytes.push(bytes);
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      bytes += Buffer.byteLength(text.slice(start, nl + 1), 'utf8');
      start = nl + 1;
    }
  }

  toByte(index: number): number {
    if (this.oneBytePerUnit) return index;
    // Binary search for the line holding `index`, then encode only that line's prefix.
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    const start = this.lineStarts[lo]!;
    return this.lineBytes[lo]! + Buffer.byteLength(this.text.slice(start, index), 'utf8');
  }
}

/** Decodes a Python source file: UTF-8 (PEP 3120) when valid, else latin-1 so that nothing is lost. */
export function decodeSource(bytes: Buffer): { text: string; oneBytePerUnit: boolean } {
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return { text: bytes.toString('latin1'), oneBytePerUnit: true };
  try {
    return {
      text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes),
      oneBytePerUnit: false,
    };
  } catch {
    return { text: bytes.toString('latin1'), oneBytePerUnit: true };
  }
}
