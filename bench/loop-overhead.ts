// node dist/bench/loop-overhead.js [--json] [--turns N]
// The real loop's per-turn harness overhead, ledger writes included: retrieval, prompt assembly
// from ledger rows, parsing, validation, the trust gate, triggers, and every turns/calls/
// observations row — with the model's and the tools' own time subtracted (a zero-latency scripted
// model; read-only tools on the sample repository; no sandbox call). Measured on turns whose
// history already holds ≥ 20 entries, so the prompt shows a full 20-entry history.
// Target: p50 ≤ 2 ms.
// Also: estimated tool-schema tokens per turn of the two arms over the piperbench issues (the
// policy arm should need at least 30 % fewer than the baseline's six full schemas).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoop, type LoopTools } from '../policy/loop.js';
import { buildSelectionPrompt } from '../policy/prompt.js';
import { TOOL_NAMES } from '../policy/registry.js';
import { retrieveByMap } from '../policy/retrieve.js';
import { CodeIndex } from '../primitives/index/code-index.js';
import { LintGate } from '../primitives/lint/lint-gate.js';
import { Workspace } from '../primitives/workspace.js';
import { DockerEngine } from '../runtime/engine/docker-engine.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { RunRecord } from '../runtime/ledger/run-record.js';
import { scriptModelFromReplies } from '../runtime/model/script-model.js';
import type { ChatModel } from '../runtime/model/types.js';
import { packageRoot } from '../runtime/package-root.js';
import { Sandbox } from '../runtime/sandbox/sandbox.js';
import { percentile, printTable } from './stats.js';
import { newPromptBoundary } from '../runtime/ledger/prompts.js';

/** The fence boundary of the prompts built here, as a run's would be. */
const BOUNDARY = newPromptBoundary();

const SELECTORS = [
  'textstats.words.top_words',
  'textstats.words.words',
  'textstats.words.word_counts',
  'textstats.report.summary',
];

async function overhead(turns: number): Promise<number[]> {
  const repo = join(packageRoot(), 'test', 'fixtures', 'sample-repo');
  const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-bench-loop-')), 'ledger.db'));
  const index = await CodeIndex.open(repo, ledger);
  const lint = new LintGate();
  const runId = ledger.createRun({ kind: 'fix', repo, owner: 'bench' });
  // The sandbox is never called: these turns use read-only tools.
  const workspace = new Workspace({
    repoRoot: repo,
    index,
    lint,
    sandbox: new Sandbox(new DockerEngine(), { image: 'unused' }),
    ledger,
    runId,
    owner: 'bench',
  });
  const replies = Array.from({ length: turns }, (_, i) =>
    JSON.stringify({
      tool: i % 3 === 2 ? 'search_symbol' : 'read_entity',
      args: i % 3 === 2 ? { query: 'words' } : { selector: SELECTORS[i % SELECTORS.length], body: true },
    }),
  );
  replies.push('{"tool": "stop", "args": {"reason": "done"}}');
  const script = scriptModelFromReplies(replies);
  let spent = 0; // model + tool time inside the current turn
  const model: ChatModel = {
    id: script.id,
    protocol: script.protocol,
    complete: async (req, signal) => {
      const t0 = performance.now();
      const reply = await script.complete(req, signal);
      spent += performance.now() - t0;
      return reply;
    },
  };
  const tools: LoopTools = {
    selectorExists: (s) => workspace.selectorExists(s),
    hasEvidence: (s) => workspace.hasEvidence(s),
    run: async (call, origin, turnId) => {
      const t0 = performance.now();
      const r = await workspace.run(call, origin, turnId);
      spent += performance.now() - t0;
      return r;
    },
    lintFile: (selector, path, turnId) => workspace.lintFile(selector, path, turnId),
  };
  const perTurn: number[] = [];
  let turnStart = 0;
  let turnNo = 0;
  await runLoop(
    {
      model,
      tools,
      record: new RunRecord(ledger, runId, 'bench'),
      emit: (e) => {
        if (e.type !== 'turn' && e.type !== 'result') return;
        const now = performance.now();
        // Turns ≥ 8 have ≥ 20 observations behind them (each turn adds one or more).
        if (turnNo >= 8) perTurn.push(now - turnStart - spent);
        turnStart = now;
        spent = 0;
        turnNo++;
      },
    },
    {
      issueText: 'textstats.words.top_words returns one word too few',
      arm: 'policy',
      reproTarget: null,
      budget: { maxTurns: turns + 5 },
    },
  );
  lint.close();
  ledger.close();
  return perTurn;
}

function schemaTokens(): { tasks: number; policy: number; baseline: number; reduction: number } {
  const dir = join(packageRoot(), 'bench', 'piperbench', 'tasks');
  const issues = existsSync(dir)
    ? readdirSync(dir).map((id) => readFileSync(join(dir, id, 'issue.md'), 'utf8'))
    : [];
  let policy = 0;
  let baseline = 0;
  for (const issue of issues) {
    const tools = retrieveByMap({ issueText: issue, latestObservation: '' }).tools;
    policy += buildSelectionPrompt({
      arm: 'policy',
      tools,
      history: [],
      latestObservation: null,
      issueText: issue,
      boundary: BOUNDARY,
    }).toolSchemaTokens;
    baseline += buildSelectionPrompt({
      arm: 'current',
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
  const tokens = schemaTokens();
  const result = {
    turns_measured: samples.length,
    turn_overhead_p50_ms: percentile(samples, 50),
    turn_overhead_p95_ms: percentile(samples, 95),
    target_p50_ms: 2,
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
      'tool-schema tokens per turn',
      `policy ${tokens.policy} vs baseline ${tokens.baseline} over ${tokens.tasks} piperbench issues`,
    ],
    ['reduction', `${tokens.reduction} % (target ≥ 30 %)`],
  ]);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
