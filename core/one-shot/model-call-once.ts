// `piper-agent tool`'s call: one call as the model's would go — validation with the exact rejection
// strings, the agent's tool runner, the trust gate, the observation the model would read — recorded
// into a `tool` run of its own (ended with the call) or into an existing run (--run). A sandboxed
// tool runs in the project environment, chosen as the agent's run chooses it; the others need
// none, and the code index and lint gate are opened for them.
import { LOOPS, type PolicyName } from '../../policy/loop-settings.js';
import { renderForModel } from '../../policy/observation-text.js';
import { trustGate } from '../../policy/trust.js';
import { validateCall } from '../../policy/validate.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import type { ToolRunner } from '../../primitives/tool-runner.js';
import { isSandboxed } from '../../primitives/tools/all-tools.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { getRun } from '../../runtime/ledger/runs.js';
import { loadConfig } from '../config.js';
import { UsageError } from '../exit-codes.js';
import { openSession, type Session } from '../session.js';
import { environmentFlags } from '../env-option.js';
import { inRunOfItsOwn, oneShotRunner, type Ended } from './one-shot.js';

export interface ModelCall {
  name: string;
  args: Record<string, unknown>;
  arm: PolicyName;
  /** Record into this run (its owner ends it); absent: a `tool` run of its own. */
  run?: string;
}

/** What the model would read: the observation of a call that ran, or the rejection of one refused. */
export interface ModelCallSeen {
  runId: string;
  callId: string;
  rejected: boolean;
  /** The model's view, JSON: the rendered observation, or the rejection object. */
  view: string;
}

export async function modelCallOnce(
  where: { repo: string; ledger: string | undefined; env?: string; 'trust-repo-config'?: boolean },
  asked: ModelCall,
  log: (line: string) => void,
): Promise<ModelCallSeen> {
  const session = await openSession({
    repo: where.repo,
    ledger: where.ledger,
    log,
    ...(isSandboxed(asked.name) ? { environment: environmentFlags(where.repo, where) } : {}),
  });
  try {
    if (asked.run === undefined) {
      const row = { kind: 'tool' as const, issue: `piper-agent tool ${asked.name}`, policy: asked.arm };
      const { runId, value } = await inRunOfItsOwn(session, row, (id) => callIn(session, id, asked));
      return { runId, ...value };
    }
    if (!getRun(session.ledger, asked.run))
      throw new UsageError(`no run ${asked.run} in ${session.ledger.path}`);
    return { runId: asked.run, ...(await callIn(session, asked.run, asked)).value };
  } finally {
    await session.close();
  }
}

/** The call validated, run and gated in run RUN, and how a run of its own ends with it. */
async function callIn(
  session: Session,
  runId: string,
  asked: ModelCall,
): Promise<Ended<Omit<ModelCallSeen, 'runId'>>> {
  const lint = new LintGate({ sandbox: { runtime: session.sandbox.runtime }, language: session.language.id });
  try {
    const index = await CodeIndex.open(session.repo, session.ledger, { language: session.language.id });
    // Without an embedder, `retrieve: embed` answers lexically with a note saying so.
    const retrieve = loadConfig({ repo: session.repo }).config.retrieve;
    const runner = oneShotRunner(session, runId, { index, lint, retrieve });
    return await validatedAndRun(session, runner, runId, asked);
  } finally {
    await lint.close();
  }
}

async function validatedAndRun(
  session: Session,
  runner: ToolRunner,
  runId: string,
  { name, args, arm }: ModelCall,
): Promise<Ended<Omit<ModelCallSeen, 'runId'>>> {
  const record = new RunRecord(session.ledger, runId, session.owner);
  const validation = validateCall({ tool: name, args }, runner, { evidenceGate: LOOPS[arm].evidenceGate });
  if (!validation.ok) {
    const { rejection } = validation;
    const callId = record.rejected({ tool: name, args, reason: rejection.reason, origin: 'model' });
    record.observe({ callId, kind: 'rejected', target: name, result: rejection, trust: 'trusted' });
    const value = { callId, rejected: true, view: JSON.stringify(rejection) };
    return { outcome: 'rejected', reason: rejection.reason, value };
  }
  const { call } = validation;
  const exec = await runner.run(call, 'model');
  const gated = trustGate(
    { ...call, result: exec.result, receipt: exec.receipt },
    { skip: LOOPS[arm].trustSkip },
  );
  const row = record.observe({
    callId: exec.callId,
    kind: exec.kind,
    target: exec.target,
    result: exec.result,
    trust: gated.trust,
    caveat: 'caveat' in gated ? gated.caveat : undefined,
  });
  const value = { callId: exec.callId, rejected: false, view: renderForModel(row, LOOPS[arm]) };
  return { outcome: 'completed', reason: `${call.tool} ran (call ${exec.callId})`, value };
}
