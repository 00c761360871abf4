// How a command's failure reaches the user: one message (and its fix) on stderr and the documented
// exit code. Loaded only when a command fails, so start-up never pays for the error classes of
// every layer.
import { isEnvPlanError } from '../../runtime/env/plan/errors.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { RepoBusyError } from '../../runtime/host/repo-lock.js';
import { sqliteFailure } from '../../runtime/ledger/open-error.js';
import { isModelError } from '../../runtime/model/types.js';
import { inert } from '../../runtime/text/inert.js';
import { IndexError } from '../../primitives/index/index-error.js';
import { ConfigError, EXIT, UsageError } from '../exit-codes.js';
import type { ErrorKind } from './error-event.js';
import { didYouMean } from '../suggest.js';

/**
 * Error text can quote what came from outside (an issue, a file, a build step's output): made
 * inert, like everything else piper writes to a terminal.
 */
function say(text: string): void {
  process.stderr.write(inert(text));
}

/** What failed, as the JSON formats report it (cli/render/error-output.ts) and with its exit code. */
export interface Failure {
  kind: ErrorKind;
  message: string;
  fix?: string;
  code: number;
}

/** Prints the error of command `name` as the user should see it; returns it classified. */
export function reportError(error: unknown, name: string, help: string): Failure {
  const failure = classify(error);
  const { kind, message, fix } = failure;
  const code = (error as { code?: string }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // One line, not the whole usage: the flag that was meant, or where the flags are listed.
    const option = /option '([^']+)'/i.exec((error as Error).message)?.[1] ?? '';
    const hint = didYouMean(option, optionsIn(help)) || `; piper-agent ${name} --help lists the options`;
    say(`piper-agent ${name}: unknown option ${option}${hint}\n`);
  } else if (kind === 'usage') say(`piper-agent: ${message}\n\n${help}\n`);
  else if (kind === 'internal')
    say(`piper-agent: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  else {
    say(`piper-agent: ${message}\n`);
    if (fix) say(`  fix: ${fix}\n`);
    if (isRuntimeError(error) && error.kind === 'env_build_failed')
      say('  or: run with `--env base` to go on in the bare sandbox image\n');
  }
  return failure;
}

function classify(error: unknown): Failure {
  const code = (error as { code?: string }).code;
  // A config file, variable or value: its one line (with a "did you mean"), no usage text.
  if (error instanceof ConfigError) return { kind: 'config', message: error.message, code: EXIT.usage };
  if (error instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS'))
    return { kind: 'usage', message: (error as Error).message, code: EXIT.usage };
  // A refused API key is configuration too, wherever it surfaces outside a run's loop.
  if (isModelError(error, 'config') || isModelError(error, 'auth'))
    return { kind: 'config', message: error.message, fix: error.fix, code: EXIT.usage };
  if (error instanceof IndexError) {
    const exit = error.kind === 'repo_unreadable' ? EXIT.usage : EXIT.failure;
    return { kind: 'setup', message: error.message, fix: error.fix, code: exit };
  }
  if (isEnvPlanError(error))
    return { kind: 'setup', message: error.message, fix: error.fix, code: EXIT.usage };
  if (error instanceof RepoBusyError) {
    // Another run holds the repository (fix, resume, undo): the operator's to resolve, as a bad flag is.
    return { kind: 'busy', message: error.message, fix: error.fix, code: EXIT.usage };
  }
  if (isRuntimeError(error)) {
    // A ledger file piper will not open (git tracks it) was named by a flag, variable or config key.
    if (error.kind === 'ledger_refused')
      return { kind: 'config', message: error.message, fix: error.fix, code: EXIT.usage };
    if (error.kind === 'engine_unreachable')
      return { kind: 'engine', message: error.message, fix: error.fix, code: EXIT.noEngine };
    // An environment that cannot be built, or a sandbox runtime the engine lacks, is set-up, as a
    // bad flag is: exit 2.
    const setup = error.kind === 'env_build_failed' || error.kind === 'runtime_unavailable';
    return {
      kind: setup ? 'setup' : 'engine',
      message: error.message,
      fix: error.fix,
      code: setup ? EXIT.usage : EXIT.failure,
    };
  }
  // A ledger that fails after it opened (a damaged page, a full disk): one line, not a stack.
  const ledger = sqliteFailure(error);
  if (ledger) return { kind: 'ledger', message: ledger.message, code: EXIT.failure };
  return { kind: 'internal', message: (error as Error)?.message ?? String(error), code: EXIT.failure };
}

/** The long options a command's usage text names: every option is documented there. */
function optionsIn(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}
