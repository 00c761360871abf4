// node dist/bench/policy-overhead.js [--json] [--turns N]
// Per-turn harness overhead of the policy layer's pure stages, model and sandbox excluded: symbol
// triggers over the latest observation, retrieval (keyword map), parsing + classifying + validating
// the model's reply, the trust gate over a recorded result, and the selection prompt with a
// 20-entry history (the ledger holds 40; the prompt shows 20). Ledger writes are not included here
// (the loop adds them). Target: the whole turn ≤ 2 ms p50 including ledger writes.
// Also: estimated tool-schema tokens per turn of the policy arm against the baseline arm (all six
// tools with full schemas) over a few sample issues; the issue asks for at least 30 % fewer.
import { LOOPS } from '../policy/loop-settings.js';
import { parseArgs } from 'node:util';
import { parseProposal } from '../policy/proposal.js';
import { buildSelectionPrompt, type LedgerEntry } from '../policy/prompt.js';
import { retrieveByMap } from '../policy/retrieve.js';
import { TriggerGate } from '../policy/triggers.js';
import { trustGate, type RecordedCall } from '../policy/trust.js';
import { classifyProposal, validateCall } from '../policy/validate.js';
import { editEntityTool } from '../primitives/tools/edit-entity/tool.js';
import { runTestTool } from '../primitives/tools/run-test/tool.js';
import { searchSymbolTool } from '../primitives/tools/search-symbol/tool.js';
import { newPromptBoundary } from '../runtime/ledger/prompts.js';

/** The fence boundary of the prompts built here, as a run's would be. */
const BOUNDARY = newPromptBoundary();

const ISSUE = `memstore.MemStore.remember drops the last item when the store is full.

Steps: create MemStore(capacity=3), remember four items, recall() returns only two.
Expected: the oldest item is evicted and three remain. tests/test_memstore.py::test_evicts_oldest fails.`;

// Sample issues for the token comparison: the kinds of text the map sees (synthetic, not a task set).
const SAMPLE_ISSUES = [
  ISSUE,
  'Calc.add returns a - b; please fix it so that tests/test_ops.py passes.',
  'Where is the retry policy configured? The docs mention backoff but I cannot find it.',
  'parse_date raises ValueError on ISO strings with a timezone offset.',
  'The CLI crashes with KeyError: "name" when the config file has no [user] section.',
  'Refactor: rename helper functions in utils.strings to snake_case and update callers.',
  'run pytest -k cache: test_cache_expiry fails intermittently, probably a timing assertion.',
  'Calculate the checksum in the sandbox and compare with the expected value in the issue.',
];

const REPLIES = [
  '{"tool": "read_entity", "args": {"selector": "memstore.MemStore.remember", "body": true}}',
  '```json\n{"tool": "search_symbol", "args": {"query": "MemStore.recall"}}\n```',
  '{"tool": "edit_entity", "args": {"selector": "memstore.MemStore.remember", "search": "if len(self.items) > self.capacity:", "replace": "if len(self.items) >= self.capacity:"}}',
  '{"tool": "run_test", "args": {"target": "tests/test_memstore.py::test_evicts_oldest"}}',
];

const RECORDED: RecordedCall[] = [
  {
    tool: runTestTool.name,
    args: { target: 'tests/test_memstore.py::test_evicts_oldest', timeout: 120 },
    result: { passed: false, exit_code: 1, output: 'E   assert 2 == 3\n1 failed in 0.03s', timed_out: false },
    receipt: { exit_code: 1, timed_out: false },
  },
  {
    tool: searchSymbolTool.name,
    args: { query: 'MemStore.remember', k: 10 },
    result: {
      ok: true,
      error: null,
      data: {
        matches: Array.from({ length: 10 }, (_, i) => ({
          selector: `memstore.MemStore.remember${i || ''}`,
          kind: 'method',
          signature: `def remember${i || ''}(self, item: str) -> None:`,
          path: 'memstore.py',
          line: 10 + i,
        })),
      },
    },
  },
  {
    tool: editEntityTool.name,
    args: {
      selector: 'memstore.MemStore.remember',
      search: 'len(self.items) > ',
      replace: 'len(self.items) >= ',
    },
    result: {
      ok: true,
      error: null,
      data: {
        committed: true,
        lint_clean: true,
        diff: '--- a/memstore.py\n+++ b/memstore.py\n@@ -10,5 +10,5 @@\n     def remember(self, item):\n-        if len(self.items) > self.capacity:\n+        if len(self.items) >= self.capacity:\n             self.items.pop(0)\n         self.items.append(item)\n',
      },
    },
  },
];

const HISTORY: LedgerEntry[] = Array.from({ length: 40 }, (_, i) => ({
  kind: ['symbol', 'read', 'search', 'test'][i % 4]!,
  target: `memstore.MemStore.method_${i}`,
  result:
    i % 2
      ? { passed: false, exit_code: 1, output: 'E   assert 2 == 3\n'.repeat(8) }
      : `def method_${i}(self):\n    ...`,
  trust: i % 7 === 0 ? 'unverified' : 'trusted',
  caveat:
    i % 7 === 0 ? 'round-trip: search_symbol match memstore.other lacks the query token "remember"' : null,
}));

const checks = { selectorExists: () => true, hasEvidence: () => true };

type Stage = 'triggers' | 'retrieve' | 'validate' | 'trust' | 'prompt' | 'turn';

function oneTurn(i: number, gate: TriggerGate, times: Record<Stage, number[]>): void {
  const recorded = RECORDED[i % RECORDED.length]!;
  const observation = JSON.stringify(trustGate(recorded));
  const t0 = performance.now();
  gate.onText(observation);
  const t1 = performance.now();
  const retrieval = retrieveByMap({ issueText: ISSUE, latestObservation: observation });
  const t2 = performance.now();
  const parsed = parseProposal(REPLIES[i % REPLIES.length]!);
  if (parsed.ok) {
    const classified = classifyProposal(parsed.proposal);
    if (classified.kind === 'call') validateCall(classified.proposal, checks);
  }
  const t3 = performance.now();
  trustGate(recorded);
  const t4 = performance.now();
  buildSelectionPrompt({
    tools: retrieval.tools,
    history: HISTORY,
    latestObservation: observation,
    issueText: ISSUE,
    boundary: BOUNDARY,
  });
  const t5 = performance.now();
  times.triggers.push(t1 - t0);
  times.retrieve.push(t2 - t1);
  times.validate.push(t3 - t2);
  times.trust.push(t4 - t3);
  times.prompt.push(t5 - t4);
  times.turn.push(t5 - t0);
}

/** Nearest-rank percentile, in ms with µs precision. */
function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[rank]! * 1000) / 1000;
}

function schemaTokens() {
  const rows = SAMPLE_ISSUES.map((issueText) => {
    const tools = retrieveByMap({ issueText, latestObservation: '' }).tools;
    const prompt = (arm: 'policy' | 'current', protocol: 'json' | 'tools') =>
      buildSelectionPrompt({
        loop: LOOPS[arm],
        protocol,
        tools,
        history: HISTORY,
        latestObservation: null,
        issueText,
        boundary: BOUNDARY,
      });
    return {
      tools: tools.length,
      policy_json: prompt('policy', 'json').toolSchemaTokens,
      baseline_json: prompt('current', 'json').toolSchemaTokens,
      policy_tools: prompt('policy', 'tools').toolSchemaTokens,
      baseline_tools: prompt('current', 'tools').toolSchemaTokens,
      policy_prompt: prompt('policy', 'json').tokens,
      baseline_prompt: prompt('current', 'json').tokens,
    };
  });
  const mean = (key: keyof (typeof rows)[number]) =>
    Math.round((rows.reduce((sum, row) => sum + row[key], 0) / rows.length) * 10) / 10;
  const saving = (policy: number, baseline: number) => Math.round((1 - policy / baseline) * 1000) / 10;
  const m = {
    tools: mean('tools'),
    policy_json: mean('policy_json'),
    baseline_json: mean('baseline_json'),
    policy_tools: mean('policy_tools'),
    baseline_tools: mean('baseline_tools'),
    policy_prompt: mean('policy_prompt'),
    baseline_prompt: mean('baseline_prompt'),
  };
  return {
    samples: rows.length,
    mean: m,
    schema_saving_pct_json: saving(m.policy_json, m.baseline_json),
    schema_saving_pct_tools: saving(m.policy_tools, m.baseline_tools),
    prompt_saving_pct_json: saving(m.policy_prompt, m.baseline_prompt),
  };
}

function main(): void {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, turns: { type: 'string', default: '5000' } },
  });
  const turns = Number(values.turns);
  if (!Number.isInteger(turns) || turns < 1)
    throw new Error(`--turns must be a positive integer, got ${values.turns}`);
  const warm: Record<Stage, number[]> = {
    triggers: [],
    retrieve: [],
    validate: [],
    trust: [],
    prompt: [],
    turn: [],
  };
  for (let i = 0; i < 500; i++) oneTurn(i, new TriggerGate(), warm);
  const times: Record<Stage, number[]> = {
    triggers: [],
    retrieve: [],
    validate: [],
    trust: [],
    prompt: [],
    turn: [],
  };
  // A fresh gate per turn, so the symbol trigger always does its full scan and marks keys.
  for (let i = 0; i < turns; i++) oneTurn(i, new TriggerGate(), times);
  const stages = Object.fromEntries(
    (Object.keys(times) as Stage[]).map((stage) => [
      stage,
      { p50_ms: percentile(times[stage], 50), p95_ms: percentile(times[stage], 95) },
    ]),
  ) as Record<Stage, { p50_ms: number; p95_ms: number }>;
  const tokens = schemaTokens();
  const report = {
    turns,
    history_entries_shown: 20,
    stages,
    target_turn_p50_ms: 2,
    ledger_writes_included: false,
    tool_schema_tokens: tokens,
    node: process.version,
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const lines = [`policy overhead per turn (${turns} turns, pure stages, no ledger writes)`, ''];
  lines.push(`${'stage'.padEnd(10)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
  for (const [stage, t] of Object.entries(stages)) {
    lines.push(`${stage.padEnd(10)} ${t.p50_ms.toFixed(3).padStart(8)} ${t.p95_ms.toFixed(3).padStart(8)}`);
  }
  const m = tokens.mean;
  lines.push(
    '',
    `tool-schema tokens per turn (estimate, chars/4; mean of ${tokens.samples} sample issues, ${m.tools} tools retrieved):`,
    `  json protocol:   policy ${m.policy_json}  baseline ${m.baseline_json}  (${tokens.schema_saving_pct_json}% fewer)`,
    `  native tools:    policy ${m.policy_tools}  baseline ${m.baseline_tools}  (${tokens.schema_saving_pct_tools}% fewer)`,
    `  whole prompt:    policy ${m.policy_prompt}  baseline ${m.baseline_prompt}  (${tokens.prompt_saving_pct_json}% fewer, json)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
