// The Engine API's multiplexed attach stream (no TTY): frames of an 8-byte header
// [stream type, 0, 0, 0, big-endian uint32 length] then the payload; type 1 = stdout, 2 = stderr.
// Frames split across socket chunks arbitrarily, so the parser keeps partial headers and bodies.

export class AttachDemuxer {
  private header = Buffer.alloc(8);
  private headerFill = 0;
  private remaining = 0;
  private target: 1 | 2 = 1;

  constructor(
    private readonly onStdout: (chunk: Buffer) => void,
    private readonly onStderr: (chunk: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining === 0) {
        const take = Math.min(8 - this.headerFill, chunk.length - offset);
        chunk.copy(this.header, this.headerFill, offset, offset + take);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < 8) return;
        this.headerFill = 0;
        this.target = this.header[0] === 2 ? 2 : 1;
        this.remaining = this.header.readUInt32BE(4);
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - offset);
      const payload = chunk.subarray(offset, offset + take);
      if (this.target === 1) this.onStdout(payload);
      else this.onStderr(payload);
      this.remaining -= take;
      offset += take;
    }
  }
}
