// node dist/bench/loop-overhead.js [--json] [--turns N]
// The real loop's per-turn harness overhead, ledger writes included: retrieval, prompt assembly
// from ledger rows, parsing, validation, the trust gate, triggers, and every turns/calls/
// observations row — with the model's and the tools' own time subtracted (a zero-latency scripted
// model; read-only tools on the sample repository; no sandbox call). Measured on turns whose
// history already holds ≥ 20 entries, so the prompt shows a full 20-entry history.
// Target: p50 ≤ 2 ms. Beside it, the same turns over the in-memory record and tools the pure loop
// test uses (test/helpers/in-memory-loop.ts): the loop's own share, with no SQLite or code index.
// Also: estimated tool-schema tokens per turn of the two arms over the piperbench issues (the
// policy arm should need at least 30 % fewer than the baseline's six full schemas).
import { BASELINE_LOOP, SPEC_LOOP } from '../policy/loop-settings.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readEntityTool } from '../primitives/tools/read-entity/tool.js';
import { searchSymbolTool } from '../primitives/tools/search-symbol/tool.js';
import { runLoop, type LoopDeps, type LoopTools } from '../policy/loop.js';
import { buildSelectionPrompt } from '../policy/prompt.js';
import { TOOL_NAMES } from '../policy/registry.js';
import { retrieveByMap } from '../policy/retrieve.js';
import { MemoryRecord, MemoryRun, MemoryTools } from '../test/helpers/in-memory-loop.js';
import { CodeIndex } from '../primitives/index/code-index.js';
import { LintGate } from '../primitives/lint/lint-gate.js';
import type { Entity } from '../primitives/types.js';
import { ToolRunner } from '../primitives/tool-runner.js';
import { DockerEngine } from '../runtime/engine/docker-engine.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { RunRecord } from '../runtime/ledger/run-record.js';
import { scriptModelFromReplies } from '../runtime/model/script-model.js';
import type { ChatModel } from '../runtime/model/types.js';
import { packageRoot } from '../runtime/package-root.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';
import { newPromptBoundary } from '../runtime/ledger/prompts.js';
import { createRun } from '../runtime/ledger/runs.js';

/** The fence boundary of the prompts built here, as a run's would be. */
const BOUNDARY = newPromptBoundary();

const SELECTORS = [
  'textstats.words.top_words',
  'textstats.words.words',
  'textstats.words.word_counts',
  'textstats.report.summary',
];

function scriptedReplies(turns: number): string[] {
  const replies = Array.from({ length: turns }, (_, i) =>
    JSON.stringify({
      tool: i % 3 === 2 ? searchSymbolTool.name : readEntityTool.name,
      args: i % 3 === 2 ? { query: 'words' } : { selector: SELECTORS[i % SELECTORS.length], body: true },
    }),
  );
  replies.push('{"tool": "stop", "args": {"reason": "done"}}');
  return replies;
}

/**
 * Per-turn harness time of the loop over the given tools and record: each turn's wall time minus
 * the model's and the tools' own time, on turns ≥ 8 (which have ≥ 20 observations behind them).
 */
async function measureTurns(
  turns: number,
  effects: { tools: LoopTools; record: LoopDeps['record'] },
): Promise<number[]> {
  const script = scriptModelFromReplies(scriptedReplies(turns));
  let spent = 0; // model + tool time inside the current turn
  const timed =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const t0 = performance.now();
      const r = await f(...args);
      spent += performance.now() - t0;
      return r;
    };
  const model: ChatModel = {
    id: script.id,
    protocol: script.protocol,
    complete: timed((req, signal) => script.complete(req, signal)),
  };
  const { tools } = effects;
  const timedTools: LoopTools = {
    selectorExists: (s) => tools.selectorExists(s),
    hasEvidence: (s) => tools.hasEvidence(s),
    run: timed((call, origin, turnId, dispatch) => tools.run(call, origin, turnId, dispatch)),
    lintFile: (selector, path, turnId, dispatch) => tools.lintFile(selector, path, turnId, dispatch),
  };
  const perTurn: number[] = [];
  let turnStart = 0;
  let turnNo = 0;
  await runLoop(
    {
      model,
      tools: timedTools,
      record: effects.record,
      emit: (e) => {
        if (e.type !== 'turn' && e.type !== 'result') return;
        const now = performance.now();
        if (turnNo >= 8) perTurn.push(now - turnStart - spent);
        turnStart = now;
        spent = 0;
        turnNo++;
      },
    },
    {
      issueText: 'textstats.words.top_words returns one word too few',
      settings: SPEC_LOOP,
      reproTarget: null,
      budget: { maxTurns: turns + 5 },
    },
  );
  return perTurn;
}

/** The real tool runner and ledger on the sample repository; the sandbox is never called. */
async function overhead(turns: number): Promise<number[]> {
  const repo = join(packageRoot(), 'test', 'fixtures', 'sample-repo');
  const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-bench-loop-')), 'ledger.db'));
  const index = await CodeIndex.open(repo, ledger);
  const lint = new LintGate();
  const runId = createRun(ledger, { kind: 'fix', repo, owner: 'bench' });
  const runner = new ToolRunner({
    repoRoot: repo,
    index,
    lint,
    sandbox: new Sandbox(new DockerEngine(), { image: 'unused' }),
    ledger,
    runId,
    owner: 'bench',
  });
  try {
    return await measureTurns(turns, { tools: runner, record: new RunRecord(ledger, runId, 'bench') });
  } finally {
    await lint.close();
    ledger.close();
  }
}

/** The same turns over the in-memory record and tools: the loop's own time, no ledger writes. */
async function pureOverhead(turns: number): Promise<number[]> {
  const run = new MemoryRun();
  // Results as the primitives return them, whole: the trust gate checks every field of the shape.
  const entity = (selector: string): Entity => ({
    selector,
    kind: 'function',
    name: selector.split('.').at(-1) ?? selector,
    path: 'w.py',
    startLine: 1,
    endLine: 2,
    startByte: 0,
    endByte: 20,
    signature: 'def f():',
    doc: null,
    async: false,
  });
  const match = (selector: string) => ({
    selector,
    kind: 'function',
    signature: 'def f():',
    path: 'w.py',
    line: 1,
  });
  const tools = new MemoryTools(
    {
      selectors: SELECTORS,
      answer: (tool, args) =>
        tool === searchSymbolTool.name
          ? {
              result: {
                ok: true,
                error: null,
                data: { matches: SELECTORS.map(match) },
              },
            }
          : {
              result: {
                ok: true,
                error: null,
                data: { entity: entity(String(args.selector)), body: 'pass' },
              },
            },
    },
    run,
  );
  return measureTurns(turns, { tools, record: new MemoryRecord(run) });
}

function schemaTokens(): { tasks: number; policy: number; baseline: number; reduction: number } {
  const dir = join(packageRoot(), 'eval', 'tasks', 'piperbench', 'tasks');
  const issues = existsSync(dir)
    ? readdirSync(dir).map((id) => readFileSync(join(dir, id, 'issue.md'), 'utf8'))
    : [];
  let policy = 0;
  let baseline = 0;
  for (const issue of issues) {
    const tools = retrieveByMap({ issueText: issue, latestObservation: '' }).tools;
    policy += buildSelectionPrompt({
      tools,
      history: [],
      latestObservation: null,
      issueText: issue,
      boundary: BOUNDARY,
    }).toolSchemaTokens;
    baseline += buildSelectionPrompt({
      loop: BASELINE_LOOP,
      tools: [...TOOL_NAMES],
      history: [],
      latestObservation: null,
      issueText: issue,
      boundary: BOUNDARY,
    }).toolSchemaTokens;
  }
  const n = Math.max(1, issues.length);
  return {
    tasks: issues.length,
    policy: Math.round(policy / n),
    baseline: Math.round(baseline / n),
    reduction: baseline ? Math.round((1 - policy / baseline) * 1000) / 10 : 0,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, turns: { type: 'string', default: '200' } },
  });
  const samples = await overhead(Number(values.turns));
  const pure = await pureOverhead(Number(values.turns));
  const tokens = schemaTokens();
  const result = {
    turns_measured: samples.length,
    turn_overhead_p50_ms: percentile(samples, 50),
    turn_overhead_p95_ms: percentile(samples, 95),
    target_p50_ms: 2,
    pure_loop_p50_ms: percentile(pure, 50),
    pure_loop_p95_ms: percentile(pure, 95),
    schema_tokens_per_turn_policy: tokens.policy,
    schema_tokens_per_turn_baseline: tokens.baseline,
    schema_token_reduction_pct: tokens.reduction,
    schema_token_tasks: tokens.tasks,
  };
  printTable([
    [
      'turn overhead p50 / p95 (ms)',
      `${result.turn_overhead_p50_ms} / ${result.turn_overhead_p95_ms} (target p50 ≤ 2)`,
    ],
    [
      'pure loop (in-memory record, tools) p50 / p95 (ms)',
      `${result.pure_loop_p50_ms} / ${result.pure_loop_p95_ms}`,
    ],
    [
      'tool-schema tokens per turn',
      `policy ${tokens.policy} vs baseline ${tokens.baseline} over ${tokens.tasks} piperbench issues`,
    ],
    ['reduction', `${tokens.reduction} % (target ≥ 30 %)`],
  ]);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
