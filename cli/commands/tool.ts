// `piper-agent tool NAME 'ARGS_JSON'`: one call through the same path a model's call takes —
// validation (with the exact rejection strings), execution, the trust gate, the ledger — and the
// observation printed as the model would read it. For debugging, and to check every rule by hand.
import { parseArgs } from 'node:util';
import { renderForModel } from '../../policy/observation-text.js';
import { isPlainObject } from '../../policy/proposal.js';
import { isReservedName, TOOL_NAMES } from '../../policy/registry.js';
import { trustGate } from '../../policy/trust.js';
import { validateCall } from '../../policy/validate.js';
import { LOOPS, type PolicyName } from '../../policy/loop-settings.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { ToolRunner } from '../../primitives/tool-runner.js';
import { gitRootAbove, repoRoot } from '../../runtime/host/git.js';
import { IN_MEMORY_LEDGER } from '../../runtime/ledger/location.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { inert, inertJson } from '../../runtime/text/inert.js';
import { loadConfig } from '../../core/config.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { openSession } from '../../core/session.js';
import { createRun, endRun, getRun } from '../../runtime/ledger/runs.js';

export const TOOL_HELP = `Usage: piper-agent tool NAME 'ARGS_JSON' [--repo DIR] [--run RUN] [--policy policy|current] [--ledger PATH]

Sends one call through validation, execution and the trust gate, records it in the ledger, and
prints the observation exactly as the model would see it (a rejection prints the rejection object).

  NAME          ${TOOL_NAMES.slice(0, -1).join(', ')} or ${TOOL_NAMES.at(-1)}
  ARGS_JSON     the call's args as one JSON object, e.g. '{"selector": "pkg.mod.func", "body": true}'
  --run RUN     check the evidence gate against, and record into, an existing run (default: a new run)
  --policy ARM  current skips the evidence gate and the trust marks (the baseline arm)

Exit status: 0 the call ran (whatever its result), 4 it was rejected, 2 bad usage, 5 no engine.
Example: piper-agent tool edit_entity '{"selector": "calc.add", "search": "a - b", "replace": "a + b"}'
         → {"ok":false,"rejected":true,"tool":"edit_entity","reason":"precondition failed: no evidence for selector calc.add"}`;

const OPTIONS = {
  repo: { type: 'string' },
  run: { type: 'string' },
  policy: { type: 'string' },
  ledger: { type: 'string' },
} as const;

export async function toolCommand(argv: string[]): Promise<number> {
  const { values, name, args, arm } = parseToolArgs(argv);
  const repo = values.repo ?? repoRoot();
  const session = await openToolSession(values, repo);
  const lint = new LintGate({ sandbox: { runtime: session.sandbox.runtime } });
  // A call of its own is a `tool` run that ends with the call; --run records into a run that
  // something else owns and ends, so it is left as it is.
  const ownRun = values.run === undefined;
  let runId: string | undefined;
  let ending: { outcome: string; reason: string } = {
    outcome: 'failed',
    reason: 'the call failed before it ran',
  };
  try {
    runId =
      values.run ??
      createRun(session.ledger, {
        kind: 'tool',
        issue: `piper-agent tool ${name}`,
        repo,
        owner: session.owner,
        policy: arm,
      });
    if (!getRun(session.ledger, runId)) throw new UsageError(`no run ${runId} in ${session.ledger.path}`);
    const index = await CodeIndex.open(repo, session.ledger);
    const runner = toolRunnerFor(session, { repo, index, lint, runId });
    const record = new RunRecord(session.ledger, runId, session.owner);
    const validation = validateCall({ tool: name, args }, runner, {
      evidenceGate: LOOPS[arm].evidenceGate,
    });
    if (!validation.ok) {
      reportRejection(record, runId, { name, args }, validation.rejection);
      ending = { outcome: 'rejected', reason: validation.rejection.reason };
      return EXIT.no;
    }
    const { call } = validation;
    const exec = await runner.run(call, 'model');
    printObserved(record, { ...call, result: exec.result, receipt: exec.receipt }, exec, arm);
    ending = { outcome: 'completed', reason: `${call.tool} ran (call ${exec.callId})` };
    process.stderr.write(`── run ${runId} · call ${exec.callId}\n`);
    return EXIT.ok;
  } catch (error) {
    ending = { outcome: 'failed', reason: (error as Error).message };
    throw error;
  } finally {
    if (ownRun && runId !== undefined) endRun(session.ledger, runId, ending.outcome, ending.reason);
    await lint.close();
    await session.close();
  }
}

/** The call's result through the trust gate into the record, and the model's view of it on stdout. */
function printObserved(
  record: RunRecord,
  gateInput: Parameters<typeof trustGate>[0],
  exec: {
    callId: string;
    kind: Parameters<RunRecord['observe']>[0]['kind'];
    target: Parameters<RunRecord['observe']>[0]['target'];
    result: Parameters<RunRecord['observe']>[0]['result'];
  },
  arm: keyof typeof LOOPS,
): void {
  const gated = trustGate(gateInput, { skip: LOOPS[arm].trustSkip });
  const row = record.observe({
    callId: exec.callId,
    kind: exec.kind,
    target: exec.target,
    result: exec.result,
    trust: gated.trust,
    caveat: 'caveat' in gated ? gated.caveat : undefined,
  });
  // The model's view, as JSON that parses to the same value but holds no raw terminal control.
  process.stdout.write(`${inertJson(renderForModel(row, LOOPS[arm]))}\n`);
}

type ToolValues = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** NAME, ARGS_JSON as one JSON object and --policy, checked before anything is opened. */
function parseToolArgs(argv: string[]): {
  values: ToolValues;
  name: string;
  args: Record<string, unknown>;
  arm: PolicyName;
} {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [name, argsJson = '{}'] = positionals;
  if (!name || positionals.length > 2)
    throw new UsageError(
      'give a tool NAME and its args as one JSON object: tool read_entity \'{"selector": "..."}\'',
    );
  if (isReservedName(name)) throw new UsageError(`${name} is a reserved outcome of the loop, not a tool`);
  const arm = (values.policy ?? 'policy') as PolicyName;
  if (arm !== 'policy' && arm !== 'current')
    throw new UsageError(`--policy must be policy or current, got '${values.policy}'`);
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(args)) throw new UsageError('ARGS_JSON must be one JSON object');
  return { values, name, args, arm };
}

/** The session the call runs in: on the repository's ledger, or in memory outside any repository. */
function openToolSession(values: ToolValues, repo: string): ReturnType<typeof openSession> {
  // Outside any repository (no --repo, no git root above here) the call is recorded in memory
  // only: a ledger file would be litter in whatever directory the user happened to be in.
  const unrecorded =
    values.repo === undefined && values.ledger === undefined && !process.env.PIPER_LEDGER && !gitRootAbove();
  if (unrecorded)
    process.stderr.write(
      `not in a git repository: the call is not recorded (pass --repo DIR or --ledger PATH to record it)\n`,
    );
  return openSession({
    repo,
    ledger: unrecorded ? IN_MEMORY_LEDGER : values.ledger,
    log: (l) => process.stderr.write(`${inert(l)}\n`),
  });
}

type ToolSession = Awaited<ReturnType<typeof openSession>>;

function toolRunnerFor(
  session: ToolSession,
  { repo, index, lint, runId }: { repo: string; index: CodeIndex; lint: LintGate; runId: string },
): ToolRunner {
  return new ToolRunner({
    repoRoot: repo,
    index,
    lint,
    sandbox: session.sandbox,
    ledger: session.ledger,
    runId,
    owner: session.owner,
    // Without an embedder, `retrieve: embed` answers lexically with a note saying so.
    retrieve: loadConfig({ repo }).config.retrieve,
    testEnv: session.environment?.run.env ?? session.environment?.plan?.testEnv,
    testNotes: session.environment?.run.runNotes,
  });
}

/** A call the validator refused: recorded as rejected, its rejection printed as the model would see it. */
function reportRejection(
  record: RunRecord,
  runId: string,
  { name, args }: { name: string; args: Record<string, unknown> },
  rejection: Extract<ReturnType<typeof validateCall>, { ok: false }>['rejection'],
): void {
  const callId = record.rejected({
    tool: name,
    args,
    reason: rejection.reason,
    origin: 'model',
  });
  record.observe({
    callId,
    kind: 'rejected',
    target: name,
    result: rejection,
    trust: 'trusted',
  });
  process.stdout.write(`${inertJson(JSON.stringify(rejection))}\n`);
  process.stderr.write(`── run ${runId} · call ${callId} (rejected)\n`);
}
