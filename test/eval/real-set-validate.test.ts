// Issue 23's "every instance must pass `ab validate` in CI", on the committed real task set
// (eval/tasks/real): the real CLI builds each project's environments as `ab` builds them and runs
// every instance's FAIL_TO_PASS and PASS_TO_PASS tests in the sandbox at base_commit with the test
// patch, then with the gold patch too. Minutes of environment builds, so it is in `make test-eval`
// (CI runs it after `make test`). The format checks that need no sandbox are test/integration/real-set.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';

const SET = join(packageRoot(), 'eval', 'tasks', 'real');

describe('ab validate on the committed real task set (real environments, real pytest)', () => {
  it('calls every instance valid, one line each, and exits 0', async () => {
    const ids = readFileSync(join(SET, 'instances.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { instance_id: string }).instance_id);
    const out = mkdtempSync(join(tmpdir(), 'piper-real-validate-'));
    const r = await runCli([
      'ab',
      'validate',
      '--bench',
      join(SET, 'instances.jsonl'),
      '--repos',
      join(SET, 'repos'),
      '--out',
      out,
    ]);
    const lines = r.stdout.trim().split('\n');
    // The whole output on failure: which instance is invalid and why.
    expect(
      lines.filter((l) => !l.startsWith('valid ')),
      r.stdout + r.stderr.slice(-2000),
    ).toEqual([
      expect.stringMatching(new RegExp(`^${ids.length} of ${ids.length} instance\\(s\\) valid, 0 invalid`)),
    ]);
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/)[1])).toEqual(ids);
    expect(r.code).toBe(0);
  });
});
