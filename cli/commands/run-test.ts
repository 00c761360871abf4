// `piper-agent run-test TARGET`: the repository's tests in a fresh sandbox, recorded in the ledger.
// The call goes through the agent's tool runner (core/one-shot/run-test-once.ts); here: the flags,
// the lines that say what runs, the result's rendering and the exit code.
import { parseArgs } from 'node:util';
import type { RunTestResult } from '../../primitives/results/sandbox-results.js';
import { inert } from '../../runtime/text/inert.js';
import { EXIT } from '../../core/exit-codes.js';
import { numberOption } from '../../core/options.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../../core/env-option.js';
import { runTestOnce } from '../../core/one-shot/run-test-once.js';
import { WARM_HELP } from '../../core/one-shot/warm-option.js';

export const RUN_TEST_HELP = `Usage: piper-agent run-test [TARGET] [--repo DIR] [--timeout S] [--json] [--ledger PATH]

Runs TARGET against a snapshot of the repository (tracked and untracked-but-not-ignored files, no
.git) in a fresh sandbox, and records it in the ledger. TARGET is one or more pytest node ids or
paths (tests/test_x.py::test_y, tests/) with pytest options, or a shell string (make check).
Without TARGET it runs the project's own test command, found as its CI runs it: the test key of
.piper/sandbox.toml, the CI workflow's test step, tox, nox, a Makefile test target, pytest's
configuration, a unittest-only suite, else python -m pytest (\`piper-agent env plan\` shows which
and why). The variables the project's test step sets (its env:) are set for every run.
Nothing the tests write reaches your files.

  --repo DIR     the repository (default: the git root of the current directory)
  --timeout S    seconds before the container is killed (1..300, default 120)
  --json         print {passed, exit_code, output, timed_out, counts} with run and call ids, the
                 target run, and where it came from when it was the project's test command
  --image NAME   run in this image as it is (also PIPER_SANDBOX_IMAGE); no environment is built
${ENV_FLAG_HELP}

The project environment (its dependencies in a venv, the project installed editable) is built
before the first run and reused while its inputs are unchanged; see \`piper-agent env --help\`.
${WARM_HELP}

A pass means tests ran and passed, by piper's own reading of the runner's summary, whatever the exit
code: no test run (a listing option such as --co), every test skipped, xfailed or deselected, a
failure named in the output under exit 0 (a status masked by \`| tee\` or \`|| true\`), or no summary
at all ("counts unknown") is no pass, and is said with why. Shell-string targets run with pipefail.

Exit status: 0 when tests ran and passed, 4 when they failed, timed out or were no pass, 2 bad usage or an
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
  const given = positionals.join(' ').trim();
  const timeout = numberOption('--timeout', values.timeout, { min: 1, max: 300, integer: true }) ?? 120;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const ran = await runTestOnce(values, { target: given, timeout }, ({ target, from, variables }) => {
    if (values.json) return;
    if (from) log(inert(`the project's test command: ${target} (${from})`));
    if (variables.length) log(inert(`test variables: ${variables.join(', ')}`));
    log(`running ${inert(target)} in the sandbox (timeout ${timeout} s) ...`);
  });
  const { runId, callId, choice, result } = ran;
  if (values.json) {
    const source = choice.from ? { from: choice.from } : {};
    process.stdout.write(
      `${JSON.stringify({ run_id: runId, call_id: callId, target: choice.target, ...source, ...result })}\n`,
    );
  } else printResult(result, `run ${runId} · call ${callId}`, log);
  return result.passed && !result.unverified_pass ? EXIT.ok : EXIT.no;
}

function printResult(result: RunTestResult, ids: string, log: (line: string) => void): void {
  // The tests' output is the repository's words: inert before a terminal sees it (--json is exact).
  process.stdout.write(`${inert(result.output)}\n`);
  const c = result.counts;
  const counts = c
    ? ` · ${c.passed} passed, ${c.failed} failed, ${c.errors} errors, ${c.skipped} skipped`
    : '';
  const verdict = result.timed_out
    ? 'TIMED OUT'
    : result.unverified_pass
      ? `NO PASS (${result.unverified_pass})`
      : result.passed
        ? 'PASSED'
        : 'FAILED';
  log(inert(`── ${verdict} · exit ${result.exit_code}${counts} · ${ids}`));
}
