// One `fix` run, wired: the model, the engine and sandbox (with a warm pool for `execute`), the code
// index, the lint gate, the workspace and the ledger record, then the loop. Shared by `fix`,
// `demo` and `resume`; the caller decides how events are shown and how questions are answered.
import { createEditAuthorizer, type ApprovalMode, type AskApproval } from '../../policy/approval.js';
import type { EventSink, RunResult } from '../../policy/events.js';
import type { GateSwitches } from '../../policy/gates.js';
import { runLoop, type LoopState, type LoopTools } from '../../policy/loop.js';
import type { PolicyArm } from '../../policy/validate.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { RUN_TEST_LIMITS } from '../../primitives/run-test.js';
import { Workspace } from '../../primitives/workspace.js';
import { gitHead } from '../../runtime/host/git.js';
import { RepoLock } from '../../runtime/host/repo-lock.js';
import { OpenAIEmbeddings } from '../../runtime/model/embeddings.js';
import { resolveModel } from '../../runtime/model/resolve.js';
import type { ChatModel } from '../../runtime/model/types.js';
import { recordApproval } from '../../runtime/ledger/approvals.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import type { Config } from '../config.js';
import type { EnvMode } from '../../runtime/env/ensure.js';
import { envMode, recipeTrusted } from '../env/env-option.js';
import { openSession } from '../session.js';

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
  /** Policy-arm gates switched off (the A/B runner's gate ablation); absent: every gate on. */
  gates?: GateSwitches;
  signal?: AbortSignal;
  /** The repository's run lock when the caller took it (resume); absent: taken and released here. */
  lock?: RepoLock;
  /** The project environment (issue 9); default: built or reused, the recipe's trust as remembered. */
  env?: { mode: EnvMode; trustRecipe: boolean };
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

export async function runFix(input: FixInput): Promise<RunResult> {
  const { config } = input;
  const model = input.model ?? modelFor(config);
  const arm: PolicyArm = config.policy ?? 'policy';
  const approvalMode = input.approval?.mode ?? 'auto';
  // One live run per repository: another fix, resume or undo here refuses, naming this run.
  const lock =
    input.lock ?? RepoLock.acquire(input.repo, { command: 'fix', runId: input.resume?.runId ?? null });
  const session = await openSession({
    repo: input.repo,
    ledger: config.ledger,
    image: config.image,
    runtime: config.sandboxRuntime,
    sandbox: { poolSize: 1, workspacePoolSize: 1, workspacePoolLimits: RUN_TEST_LIMITS },
    environment: input.env ?? { mode: envMode(undefined), trustRecipe: recipeTrusted(input.repo, false) },
    log: input.log,
    onInterrupt: (signal) =>
      process.stderr.write(
        `${signal}: run ${runId ?? '(not started)'} stopped; its running container was removed and its ledger rows marked. Undo its edits with: piper-agent undo ${runId ?? 'RUN'}\n`,
      ),
  }).catch((error: unknown) => {
    if (!input.lock) lock.release();
    throw error;
  });
  let runId: string | undefined = input.resume?.runId;
  // After an interrupt the loop may still unwind; nothing it says then is the run's result.
  const emit: EventSink = (event) => {
    if (!session.interrupted) input.emit(event);
  };
  const lint = new LintGate({ sandbox: { runtime: session.sandbox.runtime } });
  try {
    // A missing sandbox image is a set-up problem: say so before any work, not at the first test.
    await session.sandbox.checkImage();
    // No --test / `test` config: the recipe's default test command, if it names one.
    const reproTarget = input.reproTarget ?? session.environment?.plan?.testCommand ?? null;
    const index = await CodeIndex.open(input.repo, session.ledger);
    runId ??= session.ledger.createRun({
      kind: 'fix',
      issue: input.issue,
      repo: input.repo,
      head: gitHead(input.repo),
      model: model.id,
      policy: arm,
      owner: session.owner,
      config: {
        test: reproTarget,
        maxTurns: config.maxTurns,
        maxTokens: config.maxTokens,
        maxCostUsd: config.maxCostUsd,
        maxWallS: config.maxWallS,
        image: session.sandbox.image,
        env_key: session.sandbox.envKey,
        // Only a run under a named runtime (runsc) carries it, so the default run's record is unchanged.
        ...(session.sandbox.runtime ? { sandbox_runtime: session.sandbox.runtime } : {}),
        // Only an ablated run carries it, so the default run's record is unchanged.
        ...(input.gates ? { gates: input.gates } : {}),
        // A resumed run keeps the approval mode it started with (cli/ledger/resume-plan.ts).
        approval: approvalMode,
      },
    });
    lock.setRunId(runId);
    const embedder = process.env.RETRIEVE === 'embed' ? embedderFromEnv() : undefined;
    const ledger = session.ledger;
    const authorizeEdit = createEditAuthorizer({
      mode: approvalMode,
      ask: input.approval?.ask,
      record: (decision) => recordApproval(ledger, { ...decision, runId: runId! }),
    });
    const workspace = new Workspace({
      repoRoot: input.repo,
      index,
      lint,
      sandbox: session.sandbox,
      ledger: session.ledger,
      runId,
      owner: session.owner,
      embedder,
      retrieve: process.env.RETRIEVE === 'embed' ? 'embed' : 'lexical',
      authorizeEdit,
    });
    const record = new RunRecord(session.ledger, runId, session.owner);
    emit({
      type: 'init',
      run_id: runId,
      repo: input.repo,
      model: model.id,
      policy: arm,
      test: reproTarget,
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
      });
    // The pool's first container starts while the index is read and the model thinks.
    void session.sandbox.init().catch(() => undefined);
    return await runLoop(
      {
        model,
        tools: input.wrapTools ? input.wrapTools(workspace) : workspace,
        record,
        emit,
        askUser: input.askUser,
        embedder,
        signal: input.signal,
      },
      {
        issueText: input.issue,
        arm,
        reproTarget,
        budget: {
          maxTurns: config.maxTurns ?? 30,
          maxTokens: config.maxTokens,
          maxCostUsd: config.maxCostUsd,
          maxWallS: config.maxWallS,
        },
        symbolCamel: process.env.SYMBOL_CAMEL === '1',
        retrieve: process.env.RETRIEVE === 'embed' ? 'embed' : 'map',
        ...(input.gates ? { gates: input.gates } : {}),
        ...(input.resume ? { resume: { state: input.resume.state, answer: input.resume.answer } } : {}),
      },
    );
  } finally {
    lint.close();
    await session.close();
    if (!input.lock) lock.release();
  }
}

/** Whether embedding retrieval is configured: RETRIEVE=embed with an embeddings endpoint and model. */
export function embedRetrievalConfigured(): boolean {
  return process.env.RETRIEVE === 'embed' && embedderFromEnv() !== undefined;
}

function embedderFromEnv(): OpenAIEmbeddings | undefined {
  const model = process.env.PIPER_EMBED_MODEL;
  if (!model || !process.env.OPENAI_BASE_URL || !process.env.OPENAI_API_KEY) return undefined;
  return new OpenAIEmbeddings({
    baseUrl: process.env.OPENAI_BASE_URL,
    apiKey: process.env.OPENAI_API_KEY,
    model,
  });
}
