// `piper-agent execute`: a program in the project's language (Python, or JavaScript/TypeScript) in
// a fresh sandbox, recorded in the ledger, the receipt printed.
// The call goes through the agent's tool runner (core/one-shot/execute-once.ts): in the project's
// environment, with a copy of the repository at /work; --no-workspace sends the program alone.
// Here: the flags, the receipt's rendering and the exit code.
import { executeTool } from '../../primitives/tools/execute/tool.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Receipt } from '../../runtime/sandbox/spec.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../../core/env-option.js';
import { executeOnce } from '../../core/one-shot/execute-once.js';
import { WARM_HELP } from '../../core/one-shot/warm-option.js';
import { numberOption } from '../../core/options.js';
import { inert } from '../../runtime/text/inert.js';

export const EXECUTE_HELP = `Usage: piper-agent execute (--code CODE | --file PATH) [options]

Runs a program (Python; JavaScript/TypeScript in such a repository) in a fresh sandbox container
(no network, unprivileged user, root-owned root, bounded CPU, memory, processes and time), records
the call and its receipt in the ledger, and prints it.
It runs in the project's environment, in /work, with a copy of the repository there (the snapshot
run-test gets: tracked and untracked-but-not-ignored files, no .git), so \`import <project>\`
works; nothing the program writes reaches your files. In a JavaScript/TypeScript repository the
program is JavaScript or TypeScript, run by the environment's Node from a file at the repository's
root (import/export statements make it an ES module, a require() CommonJS), so \`require('./lib')\`
and \`import ... from './src/x.ts'\` work as in the project's own files.

  --code CODE        the program; '-' reads it from standard input
  --file PATH        the program from a file
  --no-workspace     send the program alone: no copy of the repository (a directory that is no
                     project, or one too big to copy)
  --timeout S        wall time in seconds; past it the container is killed (default 30)
  --memory MB        memory limit, no swap (default ${executeTool.limits.memoryMb}; more for a large snapshot)
  --cpus N           CPU quota in cores (default ${executeTool.limits.cpus})
  --pids N           process/thread limit (default ${executeTool.limits.pids})
  --output-cap BYTES bytes of each stream kept, head and tail (default ${executeTool.limits.outputCapBytes})
  --json             print the receipt as one JSON object
  --raw              write the program's stdout exactly as captured (its bytes within --output-cap,
                     UTF-8), escape sequences included; without it, and for stderr and the receipt
                     lines, every terminal control is shown as a visible escape (\\x1b): the
                     program's output is untrusted text and a terminal acts on controls
  --ledger PATH      ledger file (default: the repo's own, in ~/.local/state/piper-agent/ledgers/;
                     env PIPER_LEDGER)
  --repo DIR         the repository the ledger belongs to (default: git root of the current dir)
  --image NAME       run in this image as it is (also PIPER_SANDBOX_IMAGE); no environment is built
${ENV_FLAG_HELP}

${WARM_HELP} (With the workspace and the default limits.)

Exit status: 0 when the sandbox ran (whatever the program's own exit code, which is in the
receipt), 2 for bad usage, 5 when no Docker engine is reachable, 1 for other failures.`;

export async function executeCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      code: { type: 'string' },
      file: { type: 'string' },
      timeout: { type: 'string' },
      memory: { type: 'string' },
      cpus: { type: 'string' },
      pids: { type: 'string' },
      'output-cap': { type: 'string' },
      json: { type: 'boolean', default: false },
      raw: { type: 'boolean', default: false },
      ledger: { type: 'string' },
      repo: { type: 'string' },
      image: { type: 'string' },
      'no-workspace': { type: 'boolean', default: false },
      ...ENV_PARSE_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.json && values.raw) throw new UsageError('give --json or --raw, not both');
  const code = readProgram(values.code, values.file);
  const limits = limitOptions(values);
  const ran = await executeOnce(values, { code, limits, workspace: !values['no-workspace'] });
  const { runId, callId, receipt } = ran;
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ run_id: runId, call_id: callId, ledger: ran.ledgerPath, ...receipt })}\n`,
    );
  } else {
    printReceipt(receipt, runId, callId, values.raw);
  }
  return EXIT.ok;
}

/** The call's limits from --timeout, --memory, --cpus, --pids and --output-cap (absent: the defaults). */
function limitOptions(values: Record<string, string | boolean | undefined>) {
  const text = (name: string) => values[name] as string | undefined;
  return {
    timeoutS: numberOption('--timeout', text('timeout'), { min: 0.1, max: 3600 }),
    memoryMb: numberOption('--memory', text('memory'), { min: 6, max: 65536 }),
    cpus: numberOption('--cpus', text('cpus'), { min: 0.01, max: 64 }),
    pids: numberOption('--pids', text('pids'), { min: 1, max: 100000, integer: true }),
    outputCapBytes: numberOption('--output-cap', text('output-cap'), {
      min: 16,
      max: 64 << 20,
      integer: true,
    }),
  };
}

function readProgram(code: string | undefined, file: string | undefined): string {
  if (code !== undefined && file !== undefined) throw new UsageError('give --code or --file, not both');
  if (file !== undefined) {
    try {
      return readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  if (code === undefined)
    throw new UsageError('no program: give --code CODE, --code - (stdin) or --file PATH');
  return code === '-' ? readFileSync(0, 'utf8') : code;
}

/**
 * The receipt for a person: the program's streams made inert (a program's output could set the
 * window title or clear the screen), unless --raw asks for stdout's exact bytes (no newline added).
 */
function printReceipt(r: Receipt, runId: string, callId: string, raw: boolean): void {
  if (raw) process.stdout.write(r.stdout);
  else {
    process.stdout.write(inert(r.stdout));
    if (r.stdout && !r.stdout.endsWith('\n')) process.stdout.write('\n');
  }
  process.stderr.write(inert(r.stderr));
  if (r.stderr && !r.stderr.endsWith('\n')) process.stderr.write('\n');
  const flags = [
    r.timed_out ? `timed out after ${r.limits.timeoutS} s (container killed)` : '',
    r.oom_killed ? `killed: out of memory (limit ${r.limits.memoryMb} MB)` : '',
    r.kill_reason ?? '',
    r.stdout_truncated
      ? `stdout truncated (${r.stdout_bytes} bytes in all, sha256 ${r.stdout_sha256.slice(0, 12)})`
      : '',
    r.stderr_truncated
      ? `stderr truncated (${r.stderr_bytes} bytes in all, sha256 ${r.stderr_sha256.slice(0, 12)})`
      : '',
  ].filter(Boolean);
  const summary = [
    `exit ${r.exit_code}`,
    `${(r.timings.total_ms / 1000).toFixed(2)} s`,
    r.warm ? 'warm' : 'cold',
    `container ${r.container_id.slice(0, 12)}`,
    `image ${r.image_digest.replace('sha256:', '').slice(0, 12)}`,
    `run ${runId}`,
    `call ${callId}`,
  ].join(' · ');
  // kill_reason may quote the engine's words: inert like the rest.
  for (const f of flags) process.stderr.write(`── ${inert(f)}\n`);
  process.stderr.write(`── ${summary}\n`);
}
