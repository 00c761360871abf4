// The compile check: the host python3's own compile() (never exec) over a file's content. One
// long-lived interpreter answers JSON lines, so an edit costs a round trip, not an interpreter
// start. ruff's parser already catches syntax errors; compile() adds what only CPython's compiler
// knows (e.g. `nonlocal` at module level, too many nested blocks), exactly as the interpreter sees it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Diagnostic } from './diagnostic.js';

/** Reads one request per line ({id, source, filename}), compiles, answers {id, error}. */
const SCRIPT = `
import sys, json, warnings
warnings.simplefilter('ignore')
out = sys.stdout
for raw in sys.stdin.buffer:
    req = json.loads(raw)
    err = None
    try:
        compile(req['source'], req['filename'], 'exec', dont_inherit=True)
    except SyntaxError as e:
        err = [type(e).__name__ + ': ' + str(e.msg), e.lineno or 1, e.offset or 1]
    except Exception as e:
        err = [type(e).__name__ + ': ' + str(e), 1, 1]
    out.write(json.dumps({'id': req['id'], 'error': err}) + '\\n')
    out.flush()
`;

export type CompileOutcome =
  { available: true; diagnostic: Diagnostic | null } | { available: false; reason: string };

export interface PythonCompilerOptions {
  /** The interpreter to run; default `python3` from PATH. */
  python?: string;
  /** How long one compile may take before the interpreter is killed (and restarted next time). */
  timeoutMs?: number;
}

interface Pending {
  resolve: (outcome: CompileOutcome) => void;
  timer: NodeJS.Timeout;
}

export class PythonCompiler {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stdoutBuffer = '';
  private stderrTail = '';
  /** Set once python3 cannot be started at all: later checks answer at once. */
  private missing: string | undefined;

  constructor(private readonly options: PythonCompilerOptions = {}) {}

  compile(source: string, filename: string): Promise<CompileOutcome> {
    if (this.missing) return Promise.resolve({ available: false, reason: this.missing });
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      // The timer is what keeps Node alive while an answer is due (the pipes are unref'd).
      const timer = setTimeout(() => {
        this.stop(`python3 compile() took longer than ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.pending.set(id, { resolve, timer });
      // Python skips a UTF-8 BOM when it reads a source file, but compile() of a str rejects it.
      const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
      child.stdin.write(`${JSON.stringify({ id, source: text, filename })}\n`);
    });
  }

  /** Ends the interpreter (it exits on end of input); pending checks answer "unavailable". */
  close(): void {
    this.stop('the compile check was closed', false);
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 10_000;
  }

  private start(): ChildProcessWithoutNullStreams {
    const python = this.options.python ?? 'python3';
    // -I: ignore PYTHON* variables and the user's site-packages; -S: no site import (faster start).
    const child = spawn(python, ['-I', '-S', '-c', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.stdoutBuffer = '';
    this.stderrTail = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderrTail = (this.stderrTail + chunk).slice(-2000)));
    child.stdin.on('error', () => {}); // EPIPE when the child died: reported by 'close' below
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT')
        this.missing = `${python} not found; compile check skipped, ruff's parser only`;
      this.stop(this.missing ?? `${python} could not be started: ${error.message}`);
    });
    // 'close', not 'exit': only after the pipes are drained is the dying interpreter's last stderr
    // line in stderrTail ('exit' can come first, and the reason would lose it).
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      const why = this.stderrTail.trim().split('\n').slice(-1)[0] ?? '';
      this.stop(`${python} exited (${signal ?? `code ${code}`})${why ? `: ${why}` : ''}`);
    });
    // An idle interpreter must not keep Node running: unref the process and its pipes.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      (stream as unknown as { unref?: () => void }).unref?.();
    }
    return child;
  }

  private onStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const line = this.stdoutBuffer.slice(0, newline);
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      this.answer(line);
    }
  }

  private answer(line: string): void {
    let reply: { id: number; error: [string, number, number] | null };
    try {
      reply = JSON.parse(line) as typeof reply;
    } catch {
      return; // not ours (nothing else writes to stdout); the request's timer still bounds the wait
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    const diagnostic = reply.error
      ? { code: 'E999', message: reply.error[0], line: reply.error[1], column: reply.error[2] }
      : null;
    waiting.resolve({ available: true, diagnostic });
  }

  /**
   * Drops the interpreter (the next check starts a new one) and answers every pending check.
   * `kill` for one that hangs or misbehaves; a plain close lets it exit on end of input.
   */
  private stop(reason: string, kill = true): void {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin.end();
      if (kill && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.resolve({ available: false, reason });
      this.pending.delete(id);
    }
  }
}
