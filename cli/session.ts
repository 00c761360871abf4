// What a command that runs sandboxes sets up first: an engine that answers, the start-up sweeps
// (orphan containers of dead piper-agent processes, their ledger rows), the ledger, and the
// SIGINT/SIGTERM handling that removes running containers and marks their calls before exiting.
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine, EngineInfo } from '../runtime/engine/docker-engine.js';
import { repoRoot } from '../runtime/host/git.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { ledgerPath } from '../runtime/ledger/location.js';
import { sweepLedger } from '../runtime/ledger/sweep.js';
import { ownerTextAlive, removeOrphans } from '../runtime/sandbox/orphans.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { Sandbox, type SandboxOptions } from '../runtime/sandbox/sandbox.js';
import { EXIT } from './exit-codes.js';

export interface Session {
  engine: DockerEngine;
  info: EngineInfo;
  ledger: Ledger;
  sandbox: Sandbox;
  owner: string;
  repo: string;
  /** True once SIGINT/SIGTERM arrived: the process is cleaning up and about to exit. */
  readonly interrupted: boolean;
  close(): Promise<void>;
}

export async function openSession(opts: {
  repo?: string;
  ledger?: string;
  image?: string;
  sandbox?: Omit<SandboxOptions, 'image'>;
  log: (line: string) => void;
  /** A last word after an interrupt has cleaned up (e.g. the run id and how to undo). */
  onInterrupt?: (signal: string) => void;
}): Promise<Session> {
  const { engine, info } = await connectEngine();
  const repo = opts.repo ?? repoRoot();
  const ledger = Ledger.open(ledgerPath({ flag: opts.ledger, repo }));
  const orphans = await removeOrphans(engine);
  const swept = sweepLedger(ledger, ownerTextAlive);
  if (orphans.length || swept.length) {
    opts.log(
      `start-up sweep: removed ${orphans.length} orphan container(s), closed ${swept.length} ledger call(s)`,
    );
  }
  const sandbox = new Sandbox(engine, { image: opts.image ?? loadRecipe().ref, ...opts.sandbox });
  const owner = formatOwner(currentOwner());

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      await sandbox.close();
      ledger.close();
    })();
    return closing;
  };
  let interrupted = false;
  const interrupt = (signal: string, code: number) => {
    interrupted = true;
    opts.log(`\n${signal}: removing running containers`);
    // Our own unfinished calls are marked first, so the record is right even if removal is slow.
    sweepLedger(ledger, (o) => o !== owner, `was interrupted (${signal})`);
    void close().finally(() => {
      opts.onInterrupt?.(signal);
      process.exit(code);
    });
  };
  const onSigint = () => interrupt('SIGINT', EXIT.interrupted);
  const onSigterm = () => interrupt('SIGTERM', 143);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);

  return {
    engine,
    info,
    ledger,
    sandbox,
    owner,
    repo,
    get interrupted() {
      return interrupted;
    },
    close,
  };
}
