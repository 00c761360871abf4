// A refusal of the run commands (resume, replay, ledger) that is the operator's to fix — an
// unknown run, a ledger that is elsewhere, a run that cannot be resumed — printed as the problem
// and the fix, without the usage text, with the exit code the command documents.
import { EXIT } from '../../core/exit-codes.js';
import { inert } from '../../runtime/text/inert.js';

export class CommandError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** Runs a command body; a CommandError becomes its message, its fix and its exit code. */
export async function reportingRefusals(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    process.stderr.write(`piper-agent: ${inert(error.message)}\n`);
    if (error.fix) process.stderr.write(`  fix: ${inert(error.fix)}\n`);
    return error.exitCode;
  }
}
