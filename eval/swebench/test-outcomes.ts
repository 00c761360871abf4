// Runs test files in the real sandbox through the product's own command (`piper-agent run-test
// --json`, the environment built or reused by its content key) and reads each test's outcome from
// the full stdout the ledger keeps (the command's own output is only the tail).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { parseSummary, type SummaryWord } from '../../runtime/test-output/pytest-summary.js';
import { getExecution } from '../../runtime/ledger/calls.js';

const CLI = fileURLToPath(new URL('../../../bin/piper-agent.js', import.meta.url));

export interface TestRun {
  /** run-test's exit status: 0 passed, 4 tests failed, 2 the environment could not be built. */
  exitCode: number;
  /** The sandbox killed the run at its timeout: its outcomes are not the tests' verdict. */
  timedOut: boolean;
  outcomes: Map<string, SummaryWord>;
  /** The full pytest stdout (from the ledger), for drafting what a failing test showed. */
  stdout: string;
  /** run-test's stderr: the environment build's words when it failed. */
  stderr: string;
  ms: number;
}

/**
 * `piper-agent run-test FILES -rA` in `repo`, recorded in `ledgerPath`. With `env: 'base'` no
 * environment is built (the bare sandbox image: Python 3.13 and pytest) and the project is
 * imported from its checkout: `src/` first on PYTHONPATH when it has one, set before pytest starts
 * so a project pytest itself imports (iniconfig) is the checkout's, not Debian's.
 */
export async function runTests(
  repo: string,
  files: string[],
  options: { ledgerPath: string; env: string },
): Promise<TestRun> {
  const started = Date.now();
  const args = [
    CLI,
    'run-test',
    '--repo',
    repo,
    '--json',
    '--ledger',
    options.ledgerPath,
    '--timeout',
    '120',
  ];
  const pytest = [...files, '-rA', '--tb=short', '-p', 'no:cacheprovider'];
  const target =
    options.env === 'base'
      ? [
          '--env',
          'base',
          '--',
          `PYTHONPATH=${existsSync(join(repo, 'src')) ? 'src' : '.'}`,
          'python3',
          '-m',
          'pytest',
          ...pytest,
        ]
      : ['--env', options.env, '--', ...pytest];
  const { code, stdout, stderr } = await spawnCollect('node', [...args, ...target]);
  const ms = Date.now() - started;
  const result = lastJsonLine(stdout);
  const callId = result?.call_id;
  const timedOut = result?.timed_out === true;
  if (typeof callId !== 'string')
    return { exitCode: code, timedOut, outcomes: new Map(), stdout: '', stderr, ms };
  const ledger = Ledger.open(options.ledgerPath);
  try {
    const full = getExecution(ledger, callId)?.stdout ?? '';
    return { exitCode: code, timedOut, outcomes: parseSummary(full), stdout: full, stderr, ms };
  } finally {
    ledger.close();
  }
}

function lastJsonLine(text: string): Record<string, unknown> | undefined {
  const line = text.trim().split('\n').pop();
  try {
    return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function spawnCollect(
  cmd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
