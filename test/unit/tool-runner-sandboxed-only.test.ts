// A tool runner opened for one sandboxed call (a one-shot `run-test` or `execute`) has no code index
// and no lint gate, so the command never parses the repository. A call that would read or edit the
// code fails as its result and its ledger row ends `failed` with why: never a throw, never a write.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRunner } from '../../primitives/tool-runner.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { getCall } from '../../runtime/ledger/calls.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { packageRoot } from '../../runtime/package-root.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';

const repo = join(packageRoot(), 'test', 'fixtures', 'sample-repo');
const NO_INDEX = 'this runner has no code index: it was opened for a sandboxed call';

describe('a tool runner without the code index', () => {
  it('fails the calls that need the index as their result, recorded failed', async () => {
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-no-index-')), 'ledger.db'));
    const runId = createRun(ledger, { kind: 'run_test', repo, owner: 'test' });
    // Never contacted: no call here reaches the sandbox.
    const sandbox = new Sandbox(new DockerEngine(), { image: 'unused' });
    const runner = new ToolRunner({ repoRoot: repo, sandbox, ledger, runId, owner: 'test' });
    const source = readFileSync(join(repo, 'textstats', 'words.py'), 'utf8');
    try {
      expect(runner.selectorExists('textstats.words.top_words')).toBe(false);
      const read = await runner.run(
        { tool: 'read_entity', args: { selector: 'textstats.words.top_words', body: true, window: 100 } },
        'user',
      );
      expect(read.result).toEqual({ ok: false, error: NO_INDEX, data: null });
      expect(getCall(ledger, read.callId)).toMatchObject({ status: 'failed', status_reason: NO_INDEX });
      const edit = await runner.run(
        {
          tool: 'edit_entity',
          args: { selector: 'textstats.words.top_words', search: 'ranked[: n - 1]', replace: 'ranked[:n]' },
        },
        'user',
      );
      expect(edit.result).toEqual({ ok: false, error: NO_INDEX, data: null });
      expect(edit.edit).toBeUndefined();
      expect(readFileSync(join(repo, 'textstats', 'words.py'), 'utf8')).toBe(source);
      const lint = await runner.lintFile('textstats.words.top_words', 'textstats/words.py');
      expect(lint.result).toBe(`lint could not run: ${NO_INDEX}`);
      expect(getCall(ledger, lint.callId)).toMatchObject({ status: 'failed', status_reason: NO_INDEX });
    } finally {
      ledger.close();
    }
  });
});
