// How a command's failure reaches the user: one message (and its fix) on stderr and the documented
// exit code. Loaded only when a command fails, so start-up never pays for the error classes of
// every layer.
import { isEnvPlanError } from '../runtime/env/plan/errors.js';
import { isRuntimeError } from '../runtime/errors.js';
import { RepoBusyError } from '../runtime/host/repo-lock.js';
import { sqliteFailure } from '../runtime/ledger/open-error.js';
import { isModelError } from '../runtime/model/types.js';
import { inert } from '../runtime/text/inert.js';
import { IndexError } from '../primitives/index/index-error.js';
import { ConfigError, EXIT, UsageError } from './exit-codes.js';
import { didYouMean } from './suggest.js';

/**
 * Error text can quote what came from outside (an issue, a file, a build step's output): made
 * inert, like everything else piper writes to a terminal.
 */
function say(text: string): void {
  process.stderr.write(inert(text));
}

/** Prints the error of command `name` as the user should see it; returns the exit code. */
export function reportError(error: unknown, name: string, help: string): number {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // One line, not the whole usage: the flag that was meant, or where the flags are listed.
    const option = /option '([^']+)'/i.exec((error as Error).message)?.[1] ?? '';
    const hint = didYouMean(option, optionsIn(help)) || `; piper-agent ${name} --help lists the options`;
    say(`piper-agent ${name}: unknown option ${option}${hint}\n`);
    return EXIT.usage;
  }
  if (error instanceof ConfigError) {
    say(`piper-agent: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS')) {
    say(`piper-agent: ${(error as Error).message}\n\n${help}\n`);
    return EXIT.usage;
  }
  // A refused API key is configuration too, wherever it surfaces outside a run's loop.
  if (isModelError(error, 'config') || isModelError(error, 'auth')) {
    say(`piper-agent: ${error.message}\n`);
    if (error.fix) say(`  fix: ${error.fix}\n`);
    return EXIT.usage;
  }
  if (error instanceof IndexError) {
    say(`piper-agent: ${error.message}\n`);
    if (error.fix) say(`  fix: ${error.fix}\n`);
    return error.kind === 'repo_unreadable' ? EXIT.usage : EXIT.failure;
  }
  if (isEnvPlanError(error)) {
    say(`piper-agent: ${error.message}\n`);
    if (error.fix) say(`  fix: ${error.fix}\n`);
    return EXIT.usage;
  }
  if (error instanceof RepoBusyError) {
    // Another run holds the repository (fix, resume, undo): the operator's to resolve, as a bad flag is.
    say(`piper-agent: ${error.message}\n  fix: ${error.fix}\n`);
    return EXIT.usage;
  }
  if (isRuntimeError(error)) {
    say(`piper-agent: ${error.message}\n`);
    if (error.fix) say(`  fix: ${error.fix}\n`);
    if (error.kind === 'env_build_failed')
      say('  or: run with `--env base` to go on in the bare sandbox image\n');
    if (error.kind === 'engine_unreachable') return EXIT.noEngine;
    // An environment that cannot be built, or a sandbox runtime the engine lacks, is set-up, as a
    // bad flag is: exit 2.
    return error.kind === 'env_build_failed' || error.kind === 'runtime_unavailable'
      ? EXIT.usage
      : EXIT.failure;
  }
  // A ledger that fails after it opened (a damaged page, a full disk): one line, not a stack.
  const ledger = sqliteFailure(error);
  if (ledger) {
    say(`piper-agent: ${ledger.message}\n`);
    return EXIT.failure;
  }
  say(`piper-agent: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT.failure;
}

/** The long options a command's usage text names: every option is documented there. */
function optionsIn(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}
