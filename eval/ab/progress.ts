// The A/B runner's progress on stderr: on a terminal, one bar redrawn in place; elsewhere (CI logs),
// one line per finished unit. Units are instances plus ablation re-runs, which are only known once
// their instance has been judged, so the total can grow.

export class Progress {
  private done = 0;
  private readonly started = performance.now();
  private last = '';

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private total: number,
    private readonly tty = stream.isTTY === true,
  ) {}

  grow(units: number): void {
    this.total += units;
    this.draw();
  }

  /** One unit finished; `label` says which and how it went. */
  tick(label: string): void {
    this.done++;
    this.last = label;
    if (this.tty) this.draw();
    else this.stream.write(`[${this.done}/${this.total}] ${clock(this.elapsed())} ${label}\n`);
  }

  /** A note that does not advance the bar (a failure, a resumed instance). */
  note(line: string): void {
    if (this.tty) this.stream.write(`\r\x1b[2K${line}\n`);
    else this.stream.write(`${line}\n`);
    this.draw();
  }

  finish(): void {
    if (this.tty) this.stream.write('\n');
  }

  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  private draw(): void {
    if (!this.tty) return;
    const width = 24;
    const filled = this.total === 0 ? width : Math.round((width * this.done) / this.total);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const columns = this.stream.columns ?? 100;
    const line = `[${bar}] ${this.done}/${this.total} ${clock(this.elapsed())} ${this.last}`;
    this.stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
  }
}

function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
