// The regression gate (docs/verified.md): a run whose repro test passed is `resolved` only when the
// project's own test command, run on the run's base snapshot and on its final one in the same
// environment, shows no test that passed before and fails after. The base run starts with the run,
// in a sandbox of its own beside the model's turns, and is found again in the ledger by its key
// (suite-cache.ts); the final run starts when the loop has ended, so the loop's own contract
// (triggers, caps, one call per turn) is untouched: the gate judges its result afterwards.
import { createHash } from 'node:crypto';
import type { EventSink, RunResult } from '../../policy/events.js';
import { OUTCOME_EXIT_CODES } from '../../policy/outcome-codes.js';
import type { SuiteRun } from '../../policy/regression/suite-compare.js';
import { readSuiteRun } from '../../policy/regression/suite-read.js';
import { keepSnapshot, type KeptSnapshot } from '../../primitives/regression/suite-snapshot.js';
import { runSuite, type SuiteRunSpec } from '../../primitives/regression/suite-run.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import {
  cachedBaseRun,
  callContainer,
  markAbandoned,
  recordSuiteKey,
  recordSuiteVerdict,
} from '../../runtime/ledger/suite-cache.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { DEFAULT_TEST_COMMAND } from '../../runtime/env/plan/tests/test-command.js';
import type { Config } from '../config.js';
import { getRun } from '../../runtime/ledger/runs.js';
import type { Session } from '../session.js';
import { judgeSuite, type BaseSide, type GateRuns } from '../../policy/regression/suite-judge.js';
import { DEFAULT_SUITE_TIMEOUT_S, type SuiteReport } from '../../policy/regression/suite-report.js';
import { FinalSpeculation, type StartedRun } from './final-speculation.js';

export interface GateInput {
  session: Session;
  runId: string;
  head?: string;
  timeoutS: number;
  /** The run's repro target, named in a regressed run's reason beside what it broke. */
  reproTarget: string | null;
}

export class RegressionGate {
  private baseRun: StartedRun | null = null;
  private abandoned = false;
  private settled = false;
  private baseTimedOut = false;
  private readonly early: FinalSpeculation;

  private constructor(
    private readonly input: GateInput,
    readonly command: string,
    private readonly testEnv: Record<string, string>,
    readonly key: string,
    private readonly snapshot: KeptSnapshot | null,
    readonly base: Promise<BaseSide>,
  ) {
    this.early = new FinalSpeculation(input.session.repo, (snapshot) =>
      this.startRun(snapshot, this.command, 'final'),
    );
  }

  /**
   * Packs the base now (before any edit), then starts its run unless the ledger has it. A resumed
   * run's tree holds its edits already: its base is only the one its first start ran, by its key.
   */
  static async start(input: GateInput, resumedKey?: string | null): Promise<RegressionGate> {
    const { session } = input;
    const plan = session.environment?.jsPlan ?? session.environment?.plan ?? planEnvironment(session.repo);
    const command =
      plan.testCommand || (plan === session.environment?.jsPlan ? 'npm test' : DEFAULT_TEST_COMMAND);
    const testEnv = session.environment?.run.env ?? plan.testEnv;
    const packed = resumedKey === undefined ? await keepSnapshot(session.repo).catch((e: Error) => e) : null;
    const snapshot = packed instanceof Error ? null : packed;
    const key = snapshot
      ? gateKey(snapshot.contentKey, session, command, testEnv, input.timeoutS)
      : (resumedKey ?? '');
    if (snapshot) recordSuiteKey(session.ledger, input.runId, key);
    // The base's run needs the gate (its ledger hooks), made just below: started on the next tick.
    const made: { gate?: RegressionGate } = {};
    const base = baseSide(session, key, () =>
      packed instanceof Error
        ? Promise.reject(new Error(`the base snapshot could not be packed: ${packed.message}`))
        : snapshot
          ? made.gate!.runBase(snapshot)
          : Promise.reject(new Error("a resumed run's base run was not recorded to its end")),
    );
    const gate = (made.gate = new RegressionGate(input, command, testEnv, key, snapshot, base));
    void base.then((side) => {
      gate.settled = true;
      gate.baseTimedOut = 'run' in side && side.run.timedOut;
    });
    return gate;
  }

  /**
   * The loop's emit, minus its `result` (the gate says the run's last word after judging it); a
   * repro test that passes starts the final suite run early, on the tree as it is then.
   */
  holdResult(emit: EventSink): EventSink {
    return (event) => {
      if (event.type === 'result') return;
      emit(event);
      const repro = this.input.reproTarget;
      if (event.type === 'observation' && event.kind === 'test' && event.summary.startsWith('passed'))
        if ((repro === null || event.target.trim() === repro.trim()) && !this.baseTimedOut)
          this.early.passed();
    };
  }

  /** The loop's result judged: a `resolved` run's suite compared before and after; others as they are. */
  async judge(result: RunResult, emit: EventSink): Promise<RunResult> {
    if (result.outcome !== 'resolved') {
      await this.abandon();
      return result;
    }
    const started = Date.now();
    emit({ type: 'suite', phase: 'started', command: this.command });
    const changed = [...new Set(editsForRun(this.input.session.ledger, this.input.runId).map((e) => e.path))];
    const report = await judgeSuite(this.runs(), changed, started);
    emit({ type: 'suite', phase: 'finished', command: this.command, report });
    return this.settle(result, report);
  }

  /** The run's outcome with the suite's verdict, in the ledger and in the result. */
  private settle(result: RunResult, report: SuiteReport): RunResult {
    const regressed = report.status === 'regressed';
    const outcome = regressed ? 'regressed' : result.outcome;
    const repro = this.input.reproTarget ? ` (${this.input.reproTarget})` : '';
    const broken = report.regressions.map((r) => r.test);
    const reason = regressed
      ? `the repro test${repro} passes, but ${broken.length} test(s) that passed before the fix fail, are muted or are gone after it: ${broken.slice(0, 5).join(', ')}${broken.length > 5 ? ', …' : ''}`
      : result.reason;
    recordSuiteVerdict(this.input.session.ledger, this.input.runId, { outcome, reason, suite: report });
    const exitCode = regressed ? OUTCOME_EXIT_CODES.regressed : result.exit_code;
    return { ...result, outcome, reason, exit_code: exitCode, suite: report };
  }

  /** What the judge needs: the base, and how to run either side on a target. */
  private runs(): GateRuns {
    return {
      command: this.command,
      base: this.base,
      finalSnapshot: () => keepSnapshot(this.input.session.repo),
      baseSnapshot: this.snapshot,
      run: (snapshot, target, side) => this.startRun(snapshot, target, side).run,
      finalRun: async (snapshot) => {
        const early = await this.early.take(snapshot?.tarKey ?? null);
        return early ?? (snapshot ? this.startRun(snapshot, this.command, 'final') : null);
      },
    };
  }

  private runBase(snapshot: KeptSnapshot): Promise<SuiteRun> {
    this.baseRun = this.startRun(snapshot, this.command, 'base');
    return this.baseRun.run;
  }

  /** A suite run and how to stop it: its container killed, its run marked abandoned once ended. */
  private startRun(snapshot: KeptSnapshot, target: string, side: 'base' | 'final'): StartedRun {
    let callId: string | null = null;
    let ended = false;
    const language = this.input.session.language.id;
    const run = this.runOn(snapshot, target, side, (id) => (callId = id)).then((r) =>
      readSuiteRun(r, language),
    );
    void run.then(
      () => (ended = true),
      () => (ended = true),
    );
    const { ledger, engine } = this.input.session;
    const stop = async () => {
      const container = callId && !ended ? callContainer(ledger, callId) : null;
      if (container) await engine.kill(container).catch(() => undefined);
      await run.catch(() => undefined);
      if (container && callId) markAbandoned(ledger, callId);
    };
    return { run, stop };
  }

  private runOn(
    snapshot: KeptSnapshot,
    target: string,
    side: 'base' | 'final',
    onDispatched: (callId: string) => void,
  ) {
    const { session, runId, head, timeoutS } = this.input;
    // Only the whole command on the base is the cache's: a partial run carries another key.
    const key = side === 'base' && target === this.command ? this.key : `${this.key}:${target}`;
    const spec: SuiteRunSpec = {
      snapshot,
      target,
      testEnv: this.testEnv,
      timeoutS,
      label: { key, side, fix_run: runId },
      onDispatched,
      language: session.language.id,
      testRunner: session.environment?.jsPlan?.testRunner,
    };
    // Nothing is started, or recorded, once the run ended or was interrupted.
    if (this.abandoned || this.input.session.interrupted)
      return Promise.reject(new Error('the run ended first'));
    return runSuite(
      { sandbox: session.sandbox, ledger: session.ledger, owner: session.owner, repo: session.repo, head },
      spec,
    );
  }

  /** The run ended without a fix to judge: a base or early final run still going is stopped. */
  async abandon(): Promise<void> {
    await this.early.take(null);
    if (this.settled || this.abandoned) return;
    this.abandoned = true;
    await this.baseRun?.stop();
    await this.base;
  }
}

/** The ledger's base run under KEY, else a fresh one started now; never rejects. */
function baseSide(session: Session, key: string, run: () => Promise<SuiteRun>): Promise<BaseSide> {
  const cached = cachedBaseRun(session.ledger, key);
  const language = session.language.id;
  if (cached) return Promise.resolve({ run: readSuiteRun(cached, language), cached: true });
  // Started on the next tick: the gate object exists by then.
  return Promise.resolve()
    .then(run)
    .then(
      (r): BaseSide => ({ run: r, cached: false }),
      (error: unknown): BaseSide => ({ error: `the base run failed: ${(error as Error).message}` }),
    );
}

/** The base snapshot's content, the environment, the command, its variables and its budget. */
function gateKey(
  content: string,
  session: Session,
  command: string,
  testEnv: Record<string, string>,
  timeoutS: number,
): string {
  const env = { image: session.sandbox.image, envKey: session.sandbox.envKey };
  const text = JSON.stringify({ content, env, command, testEnv, timeoutS });
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * The run's gate, its base run started; null when `suiteTimeoutS` is 0 (no gate: the repro test
 * alone decides, as the result then says by carrying no `suite`).
 */
export async function startGate(
  session: Session,
  config: Config,
  run: { runId: string; head?: string; resumed: boolean; reproTarget: string | null },
): Promise<RegressionGate | null> {
  const timeoutS = config.suiteTimeoutS ?? DEFAULT_SUITE_TIMEOUT_S;
  if (timeoutS === 0) return null;
  const input = { session, runId: run.runId, head: run.head, timeoutS, reproTarget: run.reproTarget };
  return RegressionGate.start(input, run.resumed ? resumedKey(session, run.runId) : undefined);
}

function resumedKey(session: Session, runId: string): string | null {
  const config = getRun(session.ledger, runId)?.config;
  const key = config ? (JSON.parse(config) as { suite_key?: unknown }).suite_key : undefined;
  return typeof key === 'string' ? key : null;
}
