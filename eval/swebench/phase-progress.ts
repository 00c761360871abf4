// Where a long `ab validate` (or `ab`'s validation of its set) is: which instance of how many, and
// its phase — the repository, the Debian base image (minutes the first time), the environment, the
// tests before the fix, the tests after. On a terminal one live line, redrawn each second with the
// phase's time and the build's latest step, and one line per finished instance above it; elsewhere
// (CI logs) one line per phase and per build step, and a line when a phase has been quiet a while,
// so no log goes silent for long.
import { inert } from '../../runtime/text/inert.js';

export type Phase = 'repository' | 'base image' | 'environment' | 'tests before' | 'tests after';

const QUIET_S = 10;

/** A line of the environment builder that is about the Debian base image, not the project. */
function isBaseImageLine(line: string): boolean {
  return /root filesystem|debootstrap|importing it into the engine|^building piper-sandbox/.test(line.trim());
}

export class PhaseProgress {
  private index = 0;
  private id = '';
  private phaseName: Phase | null = null;
  private detailText = '';
  private phaseStarted = performance.now();
  private lastWrite = performance.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly total: number,
    private readonly tty = stream.isTTY === true,
  ) {}

  /** Instance `index` (1-based) starts. */
  start(index: number, id: string): void {
    this.index = index;
    this.id = id;
    this.phaseName = null;
    this.ensureTimer();
  }

  phase(name: Phase): void {
    if (name === this.phaseName) return;
    this.phaseName = name;
    this.detailText = '';
    this.phaseStarted = performance.now();
    if (this.tty) this.draw();
    else this.line(`${this.prefix()}: ${name}`);
  }

  /** A fact about the instance (its Debian and why): a line in a log, the detail on a terminal. */
  note(text: string): void {
    this.detailText = text.slice(0, 160);
    if (this.tty) this.draw();
    else this.line(`${this.prefix()}: ${text}`);
  }

  /** A line the environment builder logged: its step becomes the live detail. */
  buildLine(text: string): void {
    const line = text.trim();
    if (line === '') return;
    // A base image's own lines are indented under the line that started it.
    const base = isBaseImageLine(text) || (this.phaseName === 'base image' && /^\s/.test(text));
    this.phase(base ? 'base image' : 'environment');
    // Indented lines are a step's own output: the step's name says enough in a log.
    if (!this.tty && /^ {4}/.test(text)) return;
    this.detailText = line.slice(0, 160);
    if (this.tty) this.draw();
    else this.line(`${this.prefix()}: ${this.phaseName}: ${this.detailText}`);
  }

  /** The instance finished: the live line goes, and `line` (when the caller prints none) stays. */
  finished(line?: string): void {
    this.phaseName = null;
    if (this.tty) this.stream.write('\r\x1b[2K');
    if (line !== undefined) this.line(line.replace(/\n$/, ''));
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.tty) this.stream.write('\r\x1b[2K');
  }

  private prefix(): string {
    return `[${this.index}/${this.total}] ${this.id}`;
  }

  private seconds(): number {
    return Math.round((performance.now() - this.phaseStarted) / 1000);
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  private tick(): void {
    if (this.phaseName === null) return;
    if (this.tty) this.draw();
    else if ((performance.now() - this.lastWrite) / 1000 >= QUIET_S)
      this.line(`${this.prefix()}: ${this.phaseName}, ${this.seconds()} s so far${this.detail()}`);
  }

  private detail(): string {
    return this.detailText ? ` · ${this.detailText}` : '';
  }

  private draw(): void {
    if (this.phaseName === null) return;
    const text = `${this.prefix()}: ${this.phaseName} (${this.seconds()} s)${this.detail()}`;
    // The detail quotes a build step's output and the instance's id: inert before a terminal.
    this.stream.write(`\r\x1b[2K${inert(text).slice(0, (this.stream.columns ?? 100) - 1)}`);
    this.lastWrite = performance.now();
  }

  private line(text: string): void {
    this.stream.write(`${inert(text)}\n`);
    this.lastWrite = performance.now();
    if (this.tty) this.draw();
  }
}
