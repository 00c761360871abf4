// `piper-agent execute`: Python in a fresh sandbox, recorded in the ledger, the receipt printed.
// It runs as the agent's execute tool does (primitives/tools/execute/): in the project's environment,
// with a copy of the repository at /work; --no-workspace sends the program alone.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { execute, EXECUTE_LIMITS } from '../../primitives/tools/execute/effect.js';
import { executeTool } from '../../primitives/tools/execute/tool.js';
import { runRecorded } from '../../runtime/recorded-run.js';
import { EXECUTE_ARGV } from '../../runtime/sandbox/pool.js';
import type { Limits, Receipt } from '../../runtime/sandbox/spec.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { openCommandSession, type CommandSandboxOptions, type Session } from '../../core/session.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../../core/env-option.js';
import { WARM_HELP, keepWarmOption } from '../warm-option.js';
import { numberOption } from '../../core/options.js';
import { inert } from '../../runtime/text/inert.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';

export const EXECUTE_HELP = `Usage: piper-agent execute (--code CODE | --file PATH) [options]

Runs Python in a fresh sandbox container (no network, unprivileged user, root-owned root, bounded
CPU, memory, processes and time), records the call and its receipt in the ledger, and prints it.
It runs in the project's environment, in /work, with a copy of the repository there (the snapshot
run-test gets: tracked and untracked-but-not-ignored files, no .git), so \`import <project>\`
works; nothing the program writes reaches your files.

  --code CODE        the program; '-' reads it from standard input
  --file PATH        the program from a file
  --no-workspace     send the program alone: no copy of the repository (a directory that is no
                     project, or one too big to copy)
  --timeout S        wall time in seconds; past it the container is killed (default 30)
  --memory MB        memory limit, no swap (default ${EXECUTE_LIMITS.memoryMb}; more for a large snapshot)
  --cpus N           CPU quota in cores (default ${EXECUTE_LIMITS.cpus})
  --pids N           process/thread limit (default ${EXECUTE_LIMITS.pids})
  --output-cap BYTES bytes of each stream kept, head and tail (default ${EXECUTE_LIMITS.outputCapBytes})
  --json             print the receipt as one JSON object
  --raw              write the program's stdout exactly as captured (its bytes within --output-cap,
                     UTF-8), escape sequences included; without it, and for stderr and the receipt
                     lines, every terminal control is shown as a visible escape (\\x1b): the
                     program's output is untrusted text and a terminal acts on controls
  --ledger PATH      ledger file (default: .piper/ledger.db under the repo; env PIPER_LEDGER)
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
  const session = await openCommandSession(values, prestartedPool(limits, values['no-workspace']));
  session.sandbox.prestart();
  try {
    const runId = createRun(session.ledger, {
      kind: executeTool.name,
      repo: session.repo,
      owner: session.owner,
    });
    let ran: { callId: string; receipt: Receipt };
    try {
      ran = await runProgram(session, runId, code, limits, values['no-workspace']);
    } catch (error) {
      // Nothing ran (a snapshot over its cap, an engine that went away): the run ends, it does not stay open.
      endRun(session.ledger, runId, 'failed', (error as Error).message);
      throw error;
    }
    const { callId, receipt } = ran;
    endRun(session.ledger, runId, 'completed', `exit code ${receipt.exit_code}`);
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ run_id: runId, call_id: callId, ledger: session.ledger.path, ...receipt })}\n`,
      );
    } else {
      printReceipt(receipt, runId, callId, values.raw);
    }
    return EXIT.ok;
  } finally {
    await session.close();
  }
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

/**
 * One container started while the run is recorded and the snapshot planned (SandboxOptions.oneShot),
 * or with the workspace claimed warm from an earlier command (keepWarm),
 * when the call's limits are the pool's: with --cpus, --memory or --pids the call runs cold, and
 * a container started beside it would only be removed again.
 */
function prestartedPool(limits: Partial<Limits>, alone: boolean): CommandSandboxOptions {
  if (limits.cpus !== undefined || limits.memoryMb !== undefined || limits.pids !== undefined) return {};
  return alone
    ? { poolSize: 1, oneShot: true }
    : { workspacePoolSize: 1, workspacePoolLimits: EXECUTE_LIMITS, oneShot: true, ...keepWarmOption() };
}

/** As the agent's tool runs it (with the workspace), or the program alone; the command's own default wall time is 30 s. */
async function runProgram(
  session: Session,
  runId: string,
  code: string,
  limits: Partial<Limits>,
  alone: boolean,
): Promise<{ callId: string; receipt: Receipt }> {
  if (alone) {
    return runRecorded(
      session.ledger,
      session.sandbox,
      { runId, tool: executeTool.name, args: { code, limits }, origin: 'user', owner: session.owner },
      { image: session.sandbox.image, argv: EXECUTE_ARGV, stdin: code, limits },
    );
  }
  const ctx = { sandbox: session.sandbox, ledger: session.ledger, runId, owner: session.owner };
  return execute(
    { ...ctx, origin: 'user', repoRoot: session.repo },
    { code },
    { ...limits, timeoutS: limits.timeoutS ?? 30 },
  );
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
