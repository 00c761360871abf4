// The A/B's gate ablation (eval/ab/gates.ts: the spec's loop with one setting off) end to end over the real workspace on a copy of the
// sample repo, with a scripted model: each switch turns its own gate off and leaves the rest as they
// were. No call here reaches the sandbox (no repro target, no run_test, no execute).
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { withoutGateLoop, type GateName } from '../../eval/ab/gates.js';
import { SPEC_LOOP } from '../../policy/loop-settings.js';
import { runLoop, type LoopTools } from '../../policy/loop.js';
import { TOOL_NAMES } from '../../policy/registry.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { Workspace } from '../../primitives/workspace.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { scriptModelFromReplies } from '../../runtime/model/script-model.js';
import { packageRoot } from '../../runtime/package-root.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';

const SAMPLE = join(packageRoot(), 'test', 'fixtures', 'sample-repo');
const lint = new LintGate({ python: 'python3' }); // the host's python3: unit tests run without the engine
afterAll(() => lint.close());

const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool, args });
const STOP = call('stop', { reason: 'done' });
const READ = call('read_entity', { selector: 'textstats.words.top_words' });
const EDIT = call('edit_entity', {
  selector: 'textstats.words.top_words',
  search: 'ranked[: n - 1]',
  replace: 'ranked[:n]',
});
// Names no dotted symbol, so no symbol trigger searches (and cites) top_words before the model acts.
const PLAIN_ISSUE = 'top_words returns one word too few';

async function run(opts: {
  replies: string[];
  issue?: string;
  gate?: GateName;
  wrap?: (tools: LoopTools) => LoopTools;
}) {
  const root = mkdtempSync(join(tmpdir(), 'piper-loop-gates-'));
  const repo = join(root, 'repo');
  cpSync(SAMPLE, repo, { recursive: true });
  const ledger = Ledger.open(join(root, 'ledger.db'));
  const index = await CodeIndex.open(repo, ledger);
  const runId = ledger.createRun({ kind: 'fix', repo, owner: 'test' });
  const sandbox = new Sandbox(new DockerEngine(), { image: 'unused' });
  const workspace = new Workspace({ repoRoot: repo, index, lint, sandbox, ledger, runId, owner: 'test' });
  const events: LoopEvent[] = [];
  const result = await runLoop(
    {
      model: scriptModelFromReplies(opts.replies),
      tools: opts.wrap ? opts.wrap(workspace) : workspace,
      record: new RunRecord(ledger, runId, 'test'),
      emit: (e) => events.push(e),
    },
    {
      issueText: opts.issue ?? PLAIN_ISSUE,
      settings: opts.gate ? withoutGateLoop(opts.gate) : SPEC_LOOP,
      reproTarget: null,
      budget: { maxTurns: 5 },
    },
  );
  ledger.close();
  const triggers = events.flatMap((e) =>
    e.type === 'proposal' && e.origin === 'trigger' ? [e.trigger] : [],
  );
  const rejections = events.flatMap((e) => (e.type === 'rejection' ? [e.reason] : []));
  return { result, events, triggers, rejections };
}

describe('loop gates: each switch turns off its own gate only', () => {
  it('evidence_gate off: an edit without read/search evidence runs instead of being rejected', async () => {
    const on = await run({ replies: [EDIT, STOP] });
    expect(on.rejections).toEqual([
      'precondition failed: no evidence for selector textstats.words.top_words',
    ]);
    expect(on.result.diff).toBe('');

    const off = await run({ replies: [EDIT, STOP], gate: 'evidence_gate' });
    expect(off.rejections).toEqual([]);
    expect(off.result.diff).toContain('+    return ranked[:n]');
    // The other gates still act: the committed edit is linted by its trigger.
    expect(off.triggers[0]).toBe('post_edit_lint');
  });

  it('evidence_gate off leaves the other preconditions in place', async () => {
    const off = await run({
      replies: [call('read_entity', { selector: 'textstats.nope' }), STOP],
      gate: 'evidence_gate',
    });
    expect(off.rejections).toEqual(['precondition failed: unknown selector textstats.nope']);
  });

  it('trigger_post_edit_lint off: a committed edit is not linted by the harness', async () => {
    const on = await run({ replies: [READ, EDIT, STOP] });
    expect(on.triggers).toContain('post_edit_lint');
    const off = await run({ replies: [READ, EDIT, STOP], gate: 'trigger_post_edit_lint' });
    expect(off.triggers).not.toContain('post_edit_lint');
    expect(off.result.diff).toContain('+    return ranked[:n]');
    expect(off.rejections).toEqual([]); // the evidence gate still let the read-then-edit through
  });

  it('trigger_symbol_token off: a dotted symbol in the issue starts no search_symbol', async () => {
    const issue = '`textstats.words.top_words` returns one word too few';
    const on = await run({ issue, replies: [STOP] });
    expect(on.triggers).toEqual(['symbol_token']);
    const off = await run({ issue, replies: [STOP], gate: 'trigger_symbol_token' });
    expect(off.triggers).toEqual([]);
  });

  it('retrieval_map off: every turn presents all six tools, as the baseline does', async () => {
    const toolsets = (events: LoopEvent[]) => events.filter((e) => e.type === 'toolset');
    const on = await run({ replies: [STOP] });
    expect(['map', 'default']).toContain(toolsets(on.events)[0]!.source);
    expect(toolsets(on.events)[0]!.tools.length).toBeLessThan(TOOL_NAMES.length);
    const off = await run({ replies: [STOP], gate: 'retrieval_map' });
    expect(toolsets(off.events)[0]).toMatchObject({
      source: 'all',
      tools: [...TOOL_NAMES],
      truncated: false,
    });
  });

  describe('trust gate', () => {
    // A search_symbol result with one match that does not hold the query's token: what the
    // round-trip check exists to catch. Injected by wrapping the workspace, as a faulty index would.
    const bogusMatch = (tools: LoopTools): LoopTools => ({
      selectorExists: (s) => tools.selectorExists(s),
      hasEvidence: (s) => tools.hasEvidence(s),
      lintFile: (s, p, t, d) => tools.lintFile(s, p, t, d),
      run: async (c, origin, turnId, dispatch) => {
        const exec = await tools.run(c, origin, turnId, dispatch);
        if (c.tool !== 'search_symbol') return exec;
        const result = exec.result as { data: { matches: unknown[] } };
        const extra = {
          selector: 'textstats.report.summary',
          kind: 'function',
          signature: 'def summary(text)',
          path: 'textstats/report.py',
          line: 1,
        };
        return {
          ...exec,
          result: { ...result, data: { ...result.data, matches: [...result.data.matches, extra] } },
        };
      },
    });
    const replies = [call('search_symbol', { query: 'top_words' }), STOP];
    const observed = (events: LoopEvent[]) =>
      events.find((e) => e.type === 'observation' && e.kind === 'search') as
        Extract<LoopEvent, { type: 'observation' }> | undefined;

    it('on: the lacking match makes the observation unverified, with the round-trip caveat', async () => {
      const on = await run({ replies, wrap: bogusMatch });
      expect(observed(on.events)).toMatchObject({ trust: 'unverified' });
      expect(observed(on.events)!.caveat).toMatch(
        /^round-trip: search_symbol match textstats\.report\.summary/,
      );
    });

    it('trust_round_trip_search_symbol off: no caveat, the observation is trusted', async () => {
      const off = await run({ replies, wrap: bogusMatch, gate: 'trust_round_trip_search_symbol' });
      expect(observed(off.events)).toMatchObject({ trust: 'trusted' });
      expect(observed(off.events)!.caveat).toBeUndefined();
    });

    it('trust_gate off: no check at all, the observation is trusted', async () => {
      const off = await run({ replies, wrap: bogusMatch, gate: 'trust_gate' });
      expect(observed(off.events)).toMatchObject({ trust: 'trusted' });
      expect(observed(off.events)!.caveat).toBeUndefined();
    });
  });
});
