// What a command that runs sandboxes sets up first: an engine that answers, the start-up sweeps
// (orphan containers of dead piper-agent processes, their ledger rows), the ledger, and the
// SIGINT/SIGTERM handling: it stops the work done on the session's behalf (`interruption`), marks
// the running calls, and removes every container the process made or is making before exiting.
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../runtime/engine/docker-engine.js';
import { ensureEnvironment, type EnvironmentChoice } from '../runtime/env/choose/ensure.js';
import { repoRoot } from '../runtime/host/git.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { detectLanguage, type LanguageChoice } from '../runtime/language/detect-language.js';
import { planJsEnvironment } from '../runtime/env/js/plan/plan-js.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { ledgerPath, movedLedgerNote } from '../runtime/ledger/location.js';
import { sweepLedger } from '../runtime/ledger/sweep.js';
import { ownerTextAlive, removeOrphans } from '../runtime/sandbox/orphans.js';
import { removeEveryContainer } from '../runtime/sandbox/removal.js';
import { resolveSandboxRuntime, SANDBOX_RUNTIME_ENV } from '../runtime/sandbox/sandbox-runtime.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { Sandbox, type SandboxOptions } from '../runtime/sandbox/sandbox.js';
import { inert } from '../runtime/text/inert.js';
import { environmentFlags, type EnvironmentFlags } from './env-option.js';
import { EXIT, InterruptedRun } from './exit-codes.js';

export interface Session {
  engine: DockerEngine;
  ledger: Ledger;
  sandbox: Sandbox;
  owner: string;
  repo: string;
  /** The repository's language profile, chosen once from its files (runtime/language/). */
  language: LanguageChoice;
  /** The project environment the sandboxes run in; null when the caller asked for none. */
  environment: EnvironmentChoice | null;
  /** True once SIGINT/SIGTERM arrived: the process is cleaning up and about to exit. */
  readonly interrupted: boolean;
  /**
   * Aborted the moment SIGINT/SIGTERM arrives, before anything is marked, with an InterruptedRun
   * as its reason: work done on the session's behalf (a fix run's loop) stops at its next step,
   * so nothing it does lands in the record after the interrupted marks.
   */
  readonly interruption: AbortSignal;
  close(): Promise<void>;
}

interface SessionOptions {
  repo?: string;
  ledger?: string;
  image?: string;
  sandbox?: Omit<SandboxOptions, 'image' | 'envKey' | 'runtime'>;
  /**
   * The OCI runtime sandbox containers run under (`runsc`: gVisor). Default PIPER_SANDBOX_RUNTIME;
   * unset: the engine's default. One the engine does not offer is refused before any container.
   */
  runtime?: string;
  /**
   * Build or reuse the project's environment before the first sandbox. Without it the
   * sandboxes run in `image` or the bare sandbox image.
   */
  environment?: EnvironmentFlags;
  log: (line: string) => void;
  /** A last word after an interrupt has cleaned up (e.g. the run id and how to undo). */
  onInterrupt?: (signal: string) => void;
  /**
   * Called once the interrupted calls are marked, while the ledger is still open: the moment to
   * write the run's last record (the headless `result` with outcome `interrupted`).
   */
  onInterrupted?: (signal: string, exitCode: number) => void;
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const { engine } = await connectEngine();
  const runtime = await resolveSandboxRuntime(engine, opts.runtime ?? process.env[SANDBOX_RUNTIME_ENV]);
  const repo = opts.repo ?? repoRoot();
  const path = ledgerPath({ flag: opts.ledger, repo });
  const moved = movedLedgerNote(repo, path);
  const ledger = Ledger.open(path);
  if (moved) opts.log(moved);
  await startUpSweep(engine, ledger, opts.log);
  const owner = formatOwner(currentOwner());
  const userImage = opts.image ?? process.env.PIPER_SANDBOX_IMAGE;
  const language = detectLanguage(repo);
  const environment = await chooseEnvironment(opts, { engine, ledger, repo, owner, userImage, language });
  const sandbox = new Sandbox(engine, {
    image: environment?.image ?? userImage ?? loadRecipe().ref,
    envKey: environment?.key ?? null,
    ...opts.sandbox,
    runtime,
    log: opts.log,
  });
  const handling = handleInterrupts(opts, ledger, sandbox, owner);
  return {
    engine,
    ledger,
    sandbox,
    owner,
    repo,
    language,
    environment,
    get interrupted() {
      return handling.interrupted();
    },
    interruption: handling.interruption,
    close: handling.close,
  };
}

/** Removes what dead piper-agent processes left: their containers, and their ledger rows' ends. */
async function startUpSweep(
  engine: DockerEngine,
  ledger: Ledger,
  log: (line: string) => void,
): Promise<void> {
  const orphans = await removeOrphans(engine, log);
  const swept = sweepLedger(ledger, ownerTextAlive);
  if (orphans.length || swept.length) {
    log(
      `start-up sweep: removed ${orphans.length} orphan container(s), closed ${swept.length} ledger call(s)`,
    );
  }
}

/** The project environment when the caller asked for one (the ledger is closed if it fails). */
async function chooseEnvironment(
  opts: SessionOptions,
  at: {
    engine: DockerEngine;
    ledger: Ledger;
    repo: string;
    owner: string;
    userImage: string | undefined;
    language: LanguageChoice;
  },
): Promise<EnvironmentChoice | null> {
  if (!opts.environment) return null;
  let environment: EnvironmentChoice;
  try {
    const javascript = at.language.id === 'javascript' && !at.userImage;
    environment = await ensureEnvironment({
      ...(javascript ? { language: 'javascript', jsPlan: planJsEnvironment(at.repo) } : {}),
      engine: at.engine,
      ledger: at.ledger,
      repoRoot: at.repo,
      mode: opts.environment.mode,
      userImage: at.userImage,
      trustRecipe: opts.environment.trustRecipe,
      ...(opts.environment.sources ? { sources: opts.environment.sources } : {}),
      owner: at.owner,
      log: opts.log,
    });
  } catch (error) {
    at.ledger.close();
    throw error;
  }
  for (const note of environment.notes) opts.log(`environment: ${note}`);
  return environment;
}

/**
 * The session's SIGINT/SIGTERM handling, installed now, and its close: the first signal aborts
 * `interruption`, marks this process's running calls, writes the caller's last record, removes
 * every container and exits; a second one exits at once.
 */
function handleInterrupts(
  opts: SessionOptions,
  ledger: Ledger,
  sandbox: Sandbox,
  owner: string,
): { interrupted: () => boolean; interruption: AbortSignal; close: () => Promise<void> } {
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // An interrupt keeps its handlers to the exit: a second signal meanwhile is answered below.
      if (!interrupted) stopHandling();
      await sandbox.close();
      ledger.close();
    })();
    return closing;
  };
  let interrupted = false;
  let firstExitCode = 0;
  const interruption = new AbortController();
  const interrupt = (signal: string, code: number) => {
    if (interrupted) return exitAgain(signal, firstExitCode);
    interrupted = true;
    firstExitCode = code;
    interruption.abort(new InterruptedRun(signal, code));
    opts.log(`\n${signal}: removing running containers`);
    // Our own unfinished calls are marked first, so the record is right even if removal is slow.
    sweepLedger(ledger, (o) => o !== owner, `was interrupted (${signal})`);
    try {
      opts.onInterrupted?.(signal, code);
    } catch (error) {
      opts.log(`${signal}: could not write the interrupted result: ${(error as Error).message}`);
    }
    // Not only the sandbox's containers: any this process made or is making (the lint gate's
    // compile server is one), including a creation in flight, are removed before the exit.
    void Promise.allSettled([close(), removeEveryContainer(opts.log)]).finally(() => {
      opts.onInterrupt?.(signal);
      process.exit(code);
    });
  };
  const onSigint = () => interrupt('SIGINT', EXIT.interrupted);
  const onSigterm = () => interrupt('SIGTERM', 143);
  const stopHandling = () => {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return { interrupted: () => interrupted, interruption: interruption.signal, close };
}

/**
 * A second signal while the containers are being removed: the record (the marks, the result) was
 * written before the removal began, so nothing is lost by ending now, as the operator asks. A
 * container not removed yet keeps its owner label: the next start-up sweep removes it. Said on
 * stderr itself: a TUI's log is shown only after the run, and there is no after. The exit code is
 * the first signal's: the one the written result names.
 */
function exitAgain(signal: string, firstExitCode: number): never {
  process.stderr.write(
    `${signal} again: exiting now; the run's record is written, and a container not removed yet is removed by the next piper-agent start\n`,
  );
  process.exit(firstExitCode);
}

/**
 * The session of a one-shot command (`run-test`, `execute`): the repository from --repo or the
 * current git root, the project environment from --env / --trust-repo-config, logs on stderr.
 */
/** What a command may choose of its sandbox (the image, its key and the runtime are the session's). */
export type CommandSandboxOptions = Omit<SandboxOptions, 'image' | 'envKey' | 'runtime'>;

export function openCommandSession(
  values: {
    repo?: string;
    ledger?: string;
    image?: string;
    env?: string;
    'trust-repo-config'?: boolean;
  },
  sandbox?: CommandSandboxOptions,
): Promise<Session> {
  const repo = values.repo ?? repoRoot();
  return openSession({
    repo,
    ledger: values.ledger,
    image: values.image,
    sandbox,
    // Set-up lines can quote the repository (a build step's output, a path): inert on stderr.
    log: (line) => process.stderr.write(`${inert(line)}\n`),
    environment: environmentFlags(repo, values),
  });
}
