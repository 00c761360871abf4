// `piper-agent run-test TARGET`: the repository's tests in a fresh sandbox, recorded in the ledger.
import { parseArgs } from 'node:util';
import { runTest } from '../../primitives/run-test.js';
import { gitHead } from '../../runtime/host/git.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { inert } from '../../runtime/text/inert.js';
import { numberOption } from '../options.js';
import { openCommandSession } from '../session.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../env/env-option.js';

export const RUN_TEST_HELP = `Usage: piper-agent run-test TARGET [--repo DIR] [--timeout S] [--json] [--ledger PATH]

Runs TARGET against a snapshot of the repository (tracked and untracked-but-not-ignored files, no
.git) in a fresh sandbox, and records it in the ledger. TARGET is one or more pytest node ids or
paths (tests/test_x.py::test_y, tests/) with pytest options, or a shell string (make check).
Nothing the tests write reaches your files.

  --repo DIR     the repository (default: the git root of the current directory)
  --timeout S    seconds before the container is killed (1..300, default 120)
  --json         print {passed, exit_code, output, timed_out, counts} with run and call ids
  --image NAME   run in this image as it is (also PIPER_SANDBOX_IMAGE); no environment is built
${ENV_FLAG_HELP}

The project environment (its dependencies in a venv, the project installed editable) is built
before the first run and reused while its inputs are unchanged; see \`piper-agent env --help\`.

Exit status: 0 when the tests passed, 4 when they ran and failed or timed out, 2 bad usage or an
environment that cannot be built,
5 no Docker engine, 1 other failures.`;

export async function runTestCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean', default: false },
      ledger: { type: 'string' },
      image: { type: 'string' },
      ...ENV_PARSE_OPTIONS,
    },
    allowPositionals: true,
  });
  const target = positionals.join(' ').trim();
  if (!target) throw new UsageError('run-test needs a TARGET (a pytest node id or path, or a shell string)');
  const timeout = numberOption('--timeout', values.timeout, { min: 1, max: 300, integer: true }) ?? 120;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const session = await openCommandSession(values);
  try {
    const runId = session.ledger.createRun({
      kind: 'run_test',
      repo: session.repo,
      head: await gitHead(session.repo),
      owner: session.owner,
    });
    if (!values.json) log(`running ${inert(target)} in the sandbox (timeout ${timeout} s) ...`);
    let ran: Awaited<ReturnType<typeof runTest>>;
    try {
      ran = await runTest(
        {
          sandbox: session.sandbox,
          ledger: session.ledger,
          runId,
          owner: session.owner,
          origin: 'user',
          repoRoot: session.repo,
        },
        { target, timeout },
      );
    } catch (error) {
      // Nothing ran (a snapshot over its cap, an engine that went away): the run ends, it does not stay open.
      session.ledger.endRun(runId, 'failed', (error as Error).message);
      throw error;
    }
    const { callId, result } = ran;
    session.ledger.endRun(runId, result.passed ? 'passed' : 'failed', `exit code ${result.exit_code}`);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ run_id: runId, call_id: callId, ...result })}\n`);
    } else {
      // The tests' output is the repository's words: inert before a terminal sees it (--json is exact).
      process.stdout.write(`${inert(result.output)}\n`);
      const counts = result.counts
        ? ` · ${result.counts.passed} passed, ${result.counts.failed} failed, ${result.counts.errors} errors`
        : '';
      const verdict = result.timed_out ? 'TIMED OUT' : result.passed ? 'PASSED' : 'FAILED';
      log(`── ${verdict} · exit ${result.exit_code}${counts} · run ${runId} · call ${callId}`);
    }
    return result.passed ? EXIT.ok : EXIT.no;
  } finally {
    await session.close();
  }
}
