// One `fix` run, wired: the model, the engine and sandbox (with a warm pool for `execute`) and the
// ledger record, then its `init` event, then the code index, the lint gate, the workspace and the
// loop (run-agent.ts, loaded only then). Whatever can refuse the run (config, engine, image,
// environment, lock) comes before `init`; the rest after it, so the first event is out early.
// Shared by `fix`, `demo` and `resume`; the caller decides how events are shown and how questions
// are answered.
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { shortfallLine } from '../../runtime/env/build/shortfall.js';
import type { ApprovalMode, AskApproval } from '../../policy/approval.js';
import type { EventSink, RunResult } from '../../policy/events.js';
import type { LoopOptions, LoopState, LoopTools } from '../../policy/loop.js';
import { LOOPS, type LoopSettings, type PolicyName } from '../../policy/loop-settings.js';
import { gitHead } from '../../runtime/host/git.js';
import { RepoLock } from '../../runtime/host/repo-lock.js';
import { OpenAIEmbeddings } from '../../runtime/model/embeddings.js';
import { resolveModel, splitSpec } from '../../runtime/model/resolve.js';
import { samplingFor, type Sampling } from '../../runtime/model/sampling.js';
import { SELECTION_SAMPLING } from '../../policy/selection-sampling.js';
import type { ChatModel } from '../../runtime/model/types.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import type { Config } from '../config.js';
import { DEFAULT_TEST_COMMAND, DEFAULT_TEST_FROM } from '../../runtime/env/plan/tests/test-command.js';
import type { EnvPlan } from '../../runtime/env/plan/types.js';
import { envMode, recipeTrusted, type EnvironmentFlags } from '../env-option.js';
import { openSession, type Session } from '../session.js';
import { RefusalWatch } from './model-refusal.js';
import { interruptNote } from './interrupt-note.js';
import { interruptedResult } from './interrupted-result.js';
import { failedResult } from './failed-result.js';
import { createRun, type NewRun } from '../../runtime/ledger/runs.js';
import { recordOwnRun } from '../../runtime/host/own-runs.js';
import type { RegressionGate } from './regression-gate.js';

/** The plan's test command when the project named it; null for the default or with no plan. */
function projectTestCommand(plan: EnvPlan | null): string | null {
  return plan?.testCommand && plan.testCommandFrom !== DEFAULT_TEST_FROM ? plan.testCommand : null;
}

export interface FixInput {
  issue: string;
  repo: string;
  config: Config;
  reproTarget: string | null;
  emit: EventSink;
  log: (line: string) => void;
  askUser?: (question: string) => Promise<string | null>;
  /** Continue this run (its state is in the ledger) with the operator's answer. */
  resume?: { runId: string; answer?: string; state: LoopState };
  /** A model object instead of config.model (the A/B runner's simulated model, tests). */
  model?: ChatModel;
  /** Wraps the workspace the loop calls (the A/B runner's ablation suppresses one call this way). */
  wrapTools?: (tools: LoopTools) => LoopTools;
  /**
   * A loop other than the configured policy's (the A/B's gate ablation builds them), with the
   * switches that made it, recorded in the run's config; absent: the configured policy's loop.
   */
  loop?: { settings: LoopSettings; gates: Readonly<Record<string, boolean>> };
  signal?: AbortSignal;
  /** The repository's run lock when the caller took it (resume); absent: taken and released here. */
  lock?: RepoLock;
  /** The project environment; default: built or reused, the recipe's trust as remembered. */
  env?: EnvironmentFlags;
  /** A new run's prompt boundary (a replay reuses the recorded run's); default: a fresh one. */
  promptBoundary?: string;
  /** Who decides whether an edit is written (policy/approval.ts); default `auto`. */
  approval?: { mode: ApprovalMode; ask?: AskApproval };
}

/** Resolves the configured model; a ModelError of kind `config` says what to set. */
export function modelFor(config: Config, _repo?: string): ChatModel {
  return resolveModel(config.model, {
    config: { baseUrl: config.baseUrl, apiKey: config.apiKey, prices: config.prices },
    cwd: process.cwd(),
  });
}

/** The selection step's sampling for this model: the config's, else the policy's greedy default. */
export function samplingOf(config: Config, model: ChatModel): Sampling {
  return samplingFor(config.sampling, splitSpec(model.id).rest, SELECTION_SAMPLING);
}

/**
 * What the run has done so far, kept as the loop's events go by: what an interrupt (whose note and
 * result come from outside the loop) and a failure after `init` report.
 */
interface RunProgress {
  runId: string | undefined;
  /** Whether undo has anything to undo, for the interrupt note. */
  edited: boolean;
  record: RunRecord | undefined;
  lastTurn: number;
  /** Whether the run's own result is out (it ended just before a signal). */
  resulted: boolean;
  /** The regression gate, once started: a base run still going is stopped when the run ends. */
  gate?: RegressionGate | null;
}

/** Nothing done yet; a resumed run starts from its recorded turns. */
function startProgress(input: FixInput): RunProgress {
  const runId = input.resume?.runId;
  return {
    runId,
    edited: false,
    record: undefined,
    lastTurn: input.resume?.state.turnsUsed ?? 0,
    resulted: false,
  };
}

export async function runFix(input: FixInput): Promise<RunResult> {
  const { config } = input;
  const model = new RefusalWatch(input.model ?? modelFor(config));
  const sampling = samplingOf(config, model);
  const settings = input.loop?.settings ?? LOOPS[config.policy ?? 'policy'];
  const arm = settings.name;
  const approvalMode = input.approval?.mode ?? 'auto';
  // One live run per repository: another fix, resume or undo here refuses, naming this run.
  const lock =
    input.lock ?? RepoLock.acquire(input.repo, { command: 'fix', runId: input.resume?.runId ?? null });
  // A new run's HEAD, read by git while the session opens (a resumed run has its row; it never rejects).
  const head = input.resume ? Promise.resolve(undefined) : gitHead(input.repo);
  const progress = startProgress(input);
  const session = await openFixSession(input, progress).catch((error: unknown) => {
    if (!input.lock) lock.release();
    throw error;
  });
  const emit = progressSink(input, session, model, progress);
  // The loop stops on the caller's signal and on the interrupt, whichever comes first.
  const signal = input.signal ? AbortSignal.any([input.signal, session.interruption]) : session.interruption;
  try {
    // A missing sandbox image is a set-up problem: say so before any work, not at the first test.
    await session.sandbox.checkImage();
    // No --test / `test` config: the project's own test command, when the project names one (the
    // recipe, its CI, tox, nox, make, pytest's config, a unittest suite); never the bare default,
    // which would make every fix wait for the whole suite. Its variables reach every run_test
    // through the workspace (run-agent.ts).
    const reproTarget = input.reproTarget ?? projectTestCommand(session.environment?.plan ?? null);
    // Interrupted while the image was checked: no run is started after the interrupt.
    session.interruption.throwIfAborted();
    const run: StartedRun = { settings, approvalMode, sampling, reproTarget, head: await head };
    const runId = (progress.runId ??= startRun(session, newRunRow(input, session, model, run)));
    lock.setRunId(runId);
    progress.edited = editsForRun(session.ledger, runId).length > 0; // a resumed run may have edits already
    const record = (progress.record = new RunRecord(
      session.ledger,
      runId,
      session.owner,
      session.language.id,
    ));
    announce(emit, input, session, model, { runId, arm, reproTarget });
    // The pool's first container starts while the index is read and the model thinks.
    void session.sandbox.init().catch(() => undefined);
    // The project's suite on the base starts now, beside the model's turns (regression-gate.ts,
    // loaded after `init` like the loop's own modules).
    const { startGate } = await import('./regression-gate.js');
    session.interruption.throwIfAborted();
    const gate = (progress.gate = await startGate(session, config, {
      runId,
      head: run.head,
      resumed: !!input.resume,
      reproTarget,
    }));
    return await driveRun(input, session, { model, emit, signal, record, run, runId, progress, gate });
  } finally {
    await progress.gate?.abandon();
    await session.close();
    if (!input.lock) lock.release();
  }
}

/** What a started run's loop needs beside its input and session. */
interface Started {
  model: RefusalWatch;
  emit: ReturnType<typeof progressSink>;
  signal: AbortSignal;
  record: RunRecord;
  run: StartedRun;
  runId: string;
  progress: RunProgress;
  gate: RegressionGate | null;
}

/** The loop's events but its `result`: the run's last word is said once the result is judged. */
function withoutResult(emit: EventSink): EventSink {
  return (event) => {
    if (event.type !== 'result') emit(event);
  };
}

/** The agent's loop over a started run; a step that fails after `init` ends the run as an error. */
async function driveRun(input: FixInput, session: Session, s: Started): Promise<RunResult> {
  const { config } = input;
  const { model, emit, signal, record, run, runId, progress, gate } = s;
  const { reproTarget } = run;
  try {
    const { runAgent } = await import('./run-agent.js');
    const result = await runAgent({
      session,
      repo: input.repo,
      record,
      model,
      // The result is said once judged: as written (as-written-verdict.ts), then by the gate.
      emit: gate ? gate.holdResult(emit) : withoutResult(emit),
      askUser: input.askUser,
      signal,
      wrapTools: input.wrapTools,
      embedder: config.retrieve === 'embed' ? embedderOf(config) : undefined,
      retrieve: config.retrieve ?? 'lexical',
      approval: { mode: run.approvalMode, ask: input.approval?.ask },
      loop: loopOptions(input, run),
    });
    // The loop has ended; the repro is judged as written, then the gate judges the suite and the
    // run's last word is said.
    const { judgeAsWritten } = await import('./as-written-verdict.js');
    const written = await judgeAsWritten(
      {
        session,
        runId,
        head: run.head,
        target: reproTarget ?? gate?.command ?? DEFAULT_TEST_COMMAND,
        testEnv: session.environment?.run.env ?? session.environment?.plan?.testEnv ?? {},
      },
      result,
    );
    const judged = gate ? await gate.judge(written, emit) : written;
    if (session.interrupted) throw session.interruption.reason;
    emit({ type: 'result', ...judged });
    return model.settle(judged);
  } catch (error) {
    // After `init` the stream owes a `result`: a step that failed after it (the code index, the
    // lint gate) ends the run as an error, said on stderr with its fix as well. An interrupted
    // run's result was written by the interrupt; the command only exits with its code.
    if (session.interrupted) throw session.interruption.reason;
    const failure = failedResult({ runId, turns: progress.lastTurn, record, reproTarget, error });
    input.log(`piper-agent: ${failure.reason}`);
    emit({ type: 'result', ...failure });
    return model.settle(failure);
  }
}

/** The session of a fix: its sandbox pools, its environment, and what an interrupt reports. */
function openFixSession(input: FixInput, progress: RunProgress): Promise<Session> {
  const { config } = input;
  return openSession({
    repo: input.repo,
    ledger: config.ledger,
    image: config.image,
    runtime: config.sandboxRuntime,
    // execute and run_test both run with a workspace and the same limits: one pool of two serves both.
    sandbox: { poolSize: 0, workspacePoolSize: 2, workspacePoolLimits: runTestTool.limits },
    environment: input.env ?? { mode: envMode(undefined), trustRecipe: recipeTrusted(input.repo, false) },
    log: input.log,
    onInterrupt: (signal) => process.stderr.write(interruptNote(signal, progress.runId, progress.edited)),
    // The stream still ends with a result: the run's own record so far, outcome `interrupted`;
    // unless the run's own result is out already (it ended just before the signal).
    onInterrupted: (signal, exitCode) => {
      const { runId, record, lastTurn, resulted } = progress;
      if (runId !== undefined && record !== undefined && !resulted)
        input.emit(interruptedResult({ runId, signal, exitCode, turns: lastTurn, record }));
    },
  });
}

/**
 * The sink the loop emits to: it keeps `progress` current and forwards to the caller. After an
 * interrupt the loop stops at its next step; nothing it says then is the run's result.
 */
function progressSink(
  input: FixInput,
  session: Session,
  model: RefusalWatch,
  progress: RunProgress,
): EventSink {
  return (event) => {
    if (session.interrupted) return;
    if (event.type === 'observation' && event.kind === 'edit')
      progress.edited ||= event.summary.startsWith('committed');
    if (event.type === 'turn') progress.lastTurn = event.turn;
    progress.resulted ||= event.type === 'result';
    input.emit(event.type === 'result' ? model.settle(event) : event);
  };
}

/** What the run is started with, once the session is open. */
interface StartedRun {
  settings: LoopSettings;
  approvalMode: ApprovalMode;
  sampling: Sampling;
  reproTarget: string | null;
  head: string | undefined;
}

/** Creates the run's row, and records on this machine that piper started it (`resume` trusts only those). */
function startRun(session: Session, row: NewRun): string {
  const id = createRun(session.ledger, row);
  recordOwnRun({ id, model: row.model ?? null, config: row.config as Record<string, unknown> });
  return id;
}

/** A new run's row: the issue, HEAD, model and arm, and the settings `resume` and `replay` read back. */
function newRunRow(input: FixInput, session: Session, model: ChatModel, run: StartedRun): NewRun {
  const { config } = input;
  return {
    kind: 'fix',
    issue: input.issue,
    repo: input.repo,
    head: run.head,
    model: model.id,
    policy: run.settings.name,
    owner: session.owner,
    ...(input.promptBoundary ? { promptBoundary: input.promptBoundary } : {}),
    config: {
      test: run.reproTarget,
      maxTurns: config.maxTurns,
      maxTokens: config.maxTokens,
      maxCostUsd: config.maxCostUsd,
      maxWallS: config.maxWallS,
      sampling: { temperature: run.sampling.temperature, maxCompletionTokens: run.sampling.maxTokens },
      image: session.sandbox.image,
      env_key: session.sandbox.envKey,
      // Only a run under a named runtime (runsc) carries it, so the default run's record is unchanged.
      ...(session.sandbox.runtime ? { sandbox_runtime: session.sandbox.runtime } : {}),
      // Only an ablated run carries it, so the default run's record is unchanged.
      ...(input.loop ? { gates: input.loop.gates } : {}),
      // A resumed run keeps the approval mode it started with (cli/ledger/resume-plan.ts).
      approval: run.approvalMode,
    },
  };
}

/** The stream's first events: `init`, then the environment the sandboxes run in when there is one. */
function announce(
  emit: EventSink,
  input: FixInput,
  session: Session,
  model: ChatModel,
  run: { runId: string; arm: PolicyName; reproTarget: string | null },
): void {
  const { config } = input;
  emit({
    type: 'init',
    run_id: run.runId,
    repo: input.repo,
    model: model.id,
    policy: run.arm,
    test: run.reproTarget,
    budget: {
      max_turns: config.maxTurns ?? 30,
      max_tokens: config.maxTokens ?? null,
      max_cost_usd: config.maxCostUsd ?? null,
      max_wall_s: config.maxWallS ?? null,
    },
  });
  const env = session.environment;
  if (env)
    emit({
      type: 'environment',
      status: env.status,
      key: env.key,
      image: env.image,
      seconds: Math.round(env.seconds * 1000) / 1000,
      sources: env.sources,
      shortfalls: env.shortfalls.map(shortfallLine),
      ...(env.fallback ? { fallback: env.fallback } : {}),
    });
}

/** The loop's options for this run: the issue, its settings, caps, retrieval, and the state it resumes. */
function loopOptions(input: FixInput, run: StartedRun): LoopOptions {
  const { config } = input;
  return {
    issueText: input.issue,
    settings: run.settings,
    reproTarget: run.reproTarget,
    budget: {
      maxTurns: config.maxTurns ?? 30,
      maxTokens: config.maxTokens,
      maxCostUsd: config.maxCostUsd,
      maxWallS: config.maxWallS,
    },
    symbolCamel: config.symbolCamel === true,
    retrieve: config.retrieve === 'embed' ? 'embed' : 'map',
    sampling: run.sampling,
    ...(input.resume ? { resume: { state: input.resume.state, answer: input.resume.answer } } : {}),
  };
}

/** Whether embedding retrieval is configured: `retrieve: embed` with an embeddings endpoint and model. */
export function embedRetrievalConfigured(config: Config): boolean {
  return config.retrieve === 'embed' && embedderOf(config) !== undefined;
}

/** The embeddings client on the model's OpenAI-compatible endpoint, when the config names a model. */
function embedderOf(config: Config): OpenAIEmbeddings | undefined {
  const { embedModel, baseUrl, apiKey } = config;
  if (!embedModel || !baseUrl || !apiKey) return undefined;
  return new OpenAIEmbeddings({ baseUrl, apiKey, model: embedModel });
}
