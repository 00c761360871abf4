// The compile check: python3's own compile() (never exec) over a file's content, by the same
// python3 the sandbox runs the code with (a host python3 of another version
// rejects valid newer syntax, e.g. PEP 695). One long-lived server answers JSON lines — in a
// hardened, network-less sandbox container, started on the first check — so an edit costs a round
// trip, not an interpreter start. With no engine or image, a host python3 of the same version
// serves instead; otherwise the check says it did not run and why (never a silent pass). ruff's
// parser already catches syntax errors; compile() adds what only CPython's compiler knows (e.g.
// `nonlocal` at module level, too many nested blocks), exactly as the interpreter sees it.
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { DEFAULT_SUITE, loadRecipe, sandboxPython, type Suite } from '../../runtime/images/recipe.js';
import {
  hostPythonVersion,
  openHostChannel,
  openSandboxChannel,
  type ChannelHandlers,
  type CompileChannel,
} from './compile-channel.js';
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

interface SandboxCompileOptions {
  /** Default: the engine at DOCKER_HOST or the local socket. */
  engine?: DockerEngine;
  /** Default: the current recipe's image for `suite`. */
  image?: string;
  /** Default: the recipe's default suite (trixie). Names the Python version a host fallback must have. */
  suite?: Suite;
  /** The OCI runtime of the compile server's container (e.g. `runsc`); default the engine's. */
  runtime?: string | null;
}

export interface PythonCompilerOptions {
  /** A host interpreter used as it is, with no version check (tests; a deliberate choice). */
  python?: string;
  /** How long one compile may take before the server is killed (and restarted next time). */
  timeoutMs?: number;
  /** Where the sandbox's python3 is; used unless `python` is given. */
  sandbox?: SandboxCompileOptions;
}

/** A server that was started, and why it closed if it already did. */
interface Started {
  channel: CompileChannel;
  closed?: string;
}

interface Pending {
  resolve: (outcome: CompileOutcome) => void;
  timer: NodeJS.Timeout;
}

export class PythonCompiler {
  private channel: CompileChannel | undefined;
  private opening: Promise<CompileChannel | { reason: string }> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stdoutBuffer = '';
  /** Set once the interpreter cannot exist at all: later checks answer at once. */
  private missing: string | undefined;
  private engine: DockerEngine | undefined;
  /** Counts close() calls, so a server that finishes starting after one is ended, not used. */
  private generation = 0;
  /** Servers being ended (a sandbox one until its container is removed): close() waits for them. */
  private readonly ending = new Set<Promise<void>>();
  private lastStop = 'the compile server stopped';

  constructor(private readonly options: PythonCompilerOptions = {}) {}

  /** The sandbox's Python version (major.minor): the version syntax is judged against. */
  get pythonVersion(): string {
    return sandboxPython(this.options.sandbox?.suite ?? DEFAULT_SUITE);
  }

  async compile(source: string, filename: string): Promise<CompileOutcome> {
    if (this.missing) return { available: false, reason: this.missing };
    const channel = await this.ready();
    if ('reason' in channel) return { available: false, reason: channel.reason };
    // It may have died (or been closed) while this check waited for it to start.
    if (this.channel !== channel) return { available: false, reason: this.lastStop };
    const id = this.nextId++;
    return new Promise((resolve) => {
      // The timer is what keeps Node alive while an answer is due (the pipes are unref'd).
      const timer = setTimeout(() => {
        this.stop(`${channel.where} compile() took longer than ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.pending.set(id, { resolve, timer });
      // Python skips a UTF-8 BOM when it reads a source file, but compile() of a str rejects it.
      const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
      channel.send(`${JSON.stringify({ id, source: text, filename })}\n`);
    });
  }

  /**
   * Ends the server (it exits on end of input; a sandbox container is removed); pending checks
   * answer "unavailable". Resolves once it is gone, a server still starting included: that one is
   * ended as soon as it is up, and waited for.
   */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    this.generation++; // a server still starting is ended once it is up
    this.stop('the compile check was closed', false);
    await opening?.catch(() => undefined);
    await Promise.all([...this.ending]);
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 10_000;
  }

  /** The running server, or the one being started (one start for concurrent first checks). */
  private ready(): Promise<CompileChannel | { reason: string }> {
    if (this.channel) return Promise.resolve(this.channel);
    if (!this.opening) {
      const generation = this.generation;
      const opening: Promise<CompileChannel | { reason: string }> = this.open().then((started) => {
        if (this.opening === opening) this.opening = undefined;
        if ('reason' in started) return started;
        if (started.closed !== undefined) return { reason: started.closed }; // died while starting
        if (generation !== this.generation) {
          this.ended(started.channel.end()); // closed while it started
          return { reason: 'the compile check was closed' };
        }
        this.channel = started.channel;
        return started.channel;
      });
      this.opening = opening;
    }
    return this.opening;
  }

  private async open(): Promise<Started | { reason: string }> {
    const started: Partial<Started> & { closed?: string } = {};
    const handlers: ChannelHandlers = {
      onStdout: (text) => {
        if (this.channel && this.channel === started.channel) this.onStdout(text);
      },
      onClose: (reason, permanent) => {
        if (permanent) this.missing = reason;
        started.closed = reason;
        if (this.channel && this.channel === started.channel) this.stop(reason);
      },
    };
    this.stdoutBuffer = '';
    if (this.options.python) {
      started.channel = openHostChannel(this.options.python, SCRIPT, handlers);
      return started as Started;
    }
    const sandbox = this.options.sandbox ?? {};
    const suite = sandbox.suite ?? DEFAULT_SUITE;
    const image = sandbox.image ?? loadRecipe({ suite }).ref;
    this.engine ??= sandbox.engine ?? new DockerEngine();
    try {
      started.channel = await openSandboxChannel(
        this.engine,
        image,
        SCRIPT,
        handlers,
        sandbox.runtime ?? null,
      );
      return started as Started;
    } catch (error) {
      const wanted = sandboxPython(suite);
      const host = hostPythonVersion('python3');
      if (host === wanted) {
        started.channel = openHostChannel('python3', SCRIPT, handlers);
        return started as Started;
      }
      return {
        reason:
          `${(error as Error).message}; the host's python3 is ${host ?? 'missing'}, not the sandbox's ` +
          `${wanted}: compile check skipped, ruff's parser only`,
      };
    }
  }

  /** Keeps a server's ending until it is done, for close() to wait on. */
  private ended(ending: Promise<void>): void {
    this.ending.add(ending);
    const done = () => void this.ending.delete(ending);
    ending.then(done, done);
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
   * Drops the server (the next check starts a new one) and answers every pending check.
   * `kill` for one that hangs or misbehaves; a plain close lets it exit on end of input.
   */
  private stop(reason: string, kill = true): void {
    this.lastStop = reason;
    const channel = this.channel;
    this.channel = undefined;
    if (channel) this.ended(kill ? channel.kill() : channel.end());
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.resolve({ available: false, reason });
      this.pending.delete(id);
    }
  }
}
