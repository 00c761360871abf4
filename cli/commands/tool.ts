// `piper-agent tool NAME 'ARGS_JSON'`: one call through the same path a model's call takes —
// validation (with the exact rejection strings), execution, the trust gate, the ledger — and the
// observation printed as the model would read it. For debugging, and to check every rule by hand.
import { parseArgs } from 'node:util';
import { renderForModel } from '../../policy/observation-text.js';
import { isPlainObject } from '../../policy/proposal.js';
import { isReservedName, type ToolName } from '../../policy/registry.js';
import { trustGate } from '../../policy/trust.js';
import { validateCall, type PolicyArm } from '../../policy/validate.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { Workspace } from '../../primitives/workspace.js';
import { repoRoot } from '../../runtime/host/git.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { openSession } from '../session.js';

export const TOOL_HELP = `Usage: piper-agent tool NAME 'ARGS_JSON' [--repo DIR] [--run RUN] [--policy policy|current] [--ledger PATH]

Sends one call through validation, execution and the trust gate, records it in the ledger, and
prints the observation exactly as the model would see it (a rejection prints the rejection object).

  NAME          read_entity, search_symbol, search_code, edit_entity, run_test or execute
  ARGS_JSON     the call's args as one JSON object, e.g. '{"selector": "pkg.mod.func", "body": true}'
  --run RUN     check the evidence gate against, and record into, an existing run (default: a new run)
  --policy ARM  current skips the evidence gate and the trust marks (the baseline arm)

Exit status: 0 the call ran (whatever its result), 4 it was rejected, 2 bad usage, 5 no engine.
Example: piper-agent tool edit_entity '{"selector": "calc.add", "search": "a - b", "replace": "a + b"}'
         → {"ok":false,"rejected":true,"tool":"edit_entity","reason":"precondition failed: no evidence for selector calc.add"}`;

export async function toolCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      run: { type: 'string' },
      policy: { type: 'string' },
      ledger: { type: 'string' },
    },
    allowPositionals: true,
  });
  const [name, argsJson = '{}'] = positionals;
  if (!name || positionals.length > 2)
    throw new UsageError(
      'give a tool NAME and its args as one JSON object: tool read_entity \'{"selector": "..."}\'',
    );
  if (isReservedName(name)) throw new UsageError(`${name} is a reserved outcome of the loop, not a tool`);
  const arm = (values.policy ?? 'policy') as PolicyArm;
  if (arm !== 'policy' && arm !== 'current')
    throw new UsageError(`--policy must be policy or current, got '${values.policy}'`);
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(args)) throw new UsageError('ARGS_JSON must be one JSON object');

  const repo = values.repo ?? repoRoot();
  const session = await openSession({
    repo,
    ledger: values.ledger,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  const lint = new LintGate({ sandbox: { runtime: session.sandbox.runtime } });
  try {
    const runId =
      values.run ??
      session.ledger.createRun({
        kind: 'fix',
        issue: `piper-agent tool ${name}`,
        repo,
        owner: session.owner,
        policy: arm,
      });
    if (!session.ledger.getRun(runId)) throw new UsageError(`no run ${runId} in ${session.ledger.path}`);
    const index = await CodeIndex.open(repo, session.ledger);
    const workspace = new Workspace({
      repoRoot: repo,
      index,
      lint,
      sandbox: session.sandbox,
      ledger: session.ledger,
      runId,
      owner: session.owner,
    });
    const record = new RunRecord(session.ledger, runId, session.owner);
    const validation = validateCall({ tool: name, args }, workspace, { policy: arm });
    if (!validation.ok) {
      const callId = record.rejected({
        tool: name,
        args,
        reason: validation.rejection.reason,
        origin: 'model',
      });
      record.observe({
        callId,
        kind: 'rejected',
        target: name,
        result: validation.rejection,
        trust: 'trusted',
      });
      process.stdout.write(`${JSON.stringify(validation.rejection)}\n`);
      return EXIT.no;
    }
    const call = validation.call as { tool: ToolName; args: Record<string, unknown> };
    const exec = await workspace.run(call, 'model');
    const gated = trustGate(
      { tool: call.tool, args: call.args, result: exec.result, receipt: exec.receipt },
      { policy: arm },
    );
    const row = record.observe({
      callId: exec.callId,
      kind: exec.kind,
      target: exec.target,
      result: exec.result,
      trust: 'trust' in gated ? gated.trust : 'trusted',
      caveat: 'caveat' in gated ? gated.caveat : undefined,
    });
    process.stdout.write(`${renderForModel(row, arm)}\n`);
    process.stderr.write(`── run ${runId} · call ${exec.callId}\n`);
    return EXIT.ok;
  } finally {
    lint.close();
    await session.close();
  }
}
