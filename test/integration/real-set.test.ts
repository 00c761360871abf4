// The committed real task set (eval/tasks/real/), checked cheaply for format and soundness: every
// line is a SWE-bench instance with the dataset's fields, its repository bundle holds its base
// commit, its patch and test patch apply there (each alone and both together), the split is
// SWE-bench's (tests in test_patch, nothing else), and no problem statement gives the fix away. The
// sandbox validation (FAIL_TO_PASS fail, then pass with the gold patch) is `ab validate`'s.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneBundle, git, gitOk } from '../../eval/swebench/git.js';
import type { SweBenchInstance } from '../../eval/swebench/instance.js';
import { statementLeaks } from '../../eval/swebench/leaks.js';
import { isTestPath } from '../../eval/swebench/split.js';
import { packageRoot } from '../../runtime/package-root.js';

const SET = join(packageRoot(), 'eval', 'tasks', 'real');
const lines = readFileSync(join(SET, 'instances.jsonl'), 'utf8').split('\n').filter(Boolean);
const instances = lines.map((line) => JSON.parse(line) as SweBenchInstance);
const scratch = mkdtempSync(join(tmpdir(), 'real-set-'));
const clones = new Map<string, string>();

const FIELDS = [
  'instance_id',
  'repo',
  'base_commit',
  'problem_statement',
  'patch',
  'test_patch',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
  'version',
  'environment_setup_commit',
  'created_at',
  'hints_text',
] as const;

beforeAll(() => {
  for (const repo of new Set(instances.map((i) => i.repo))) {
    const clone = join(scratch, repo.replace('/', '__'));
    cloneBundle(join(SET, 'repos', `${repo.split('/')[1]}.bundle`), clone, { checkout: false });
    clones.set(repo, clone);
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fileList(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]!);
}

describe('the real task set', () => {
  // At least 20 instances from at least 4 projects, so no one project's habits decide an A/B over
  // the set (eval/tasks/real/MINING.md says how they were mined). This floor keeps instances from
  // being lost; raise it as the set grows.
  it('has at least 20 instances from at least 4 projects, each with a bundle', () => {
    expect(instances.length).toBeGreaterThanOrEqual(20);
    const repos = new Set(instances.map((i) => i.repo));
    expect(repos.size).toBeGreaterThanOrEqual(4);
    for (const repo of repos)
      expect(existsSync(join(SET, 'repos', `${repo.split('/')[1]}.bundle`))).toBe(true);
  });

  it("every line has SWE-bench's fields and types, and a unique owner__name-<commit> id", () => {
    for (const instance of instances) {
      expect(Object.keys(instance).sort()).toEqual([...FIELDS].sort());
      for (const field of FIELDS)
        expect(typeof instance[field], `${instance.instance_id} ${field}`).toBe('string');
      expect(instance.instance_id).toMatch(new RegExp(`^${instance.repo.replace('/', '__')}-[0-9a-f]{7}$`));
      expect(instance.base_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(Number.isNaN(Date.parse(instance.created_at))).toBe(false);
      const f2p = JSON.parse(instance.FAIL_TO_PASS) as unknown;
      const p2p = JSON.parse(instance.PASS_TO_PASS) as unknown;
      expect(Array.isArray(f2p) && f2p.length > 0, instance.instance_id).toBe(true);
      expect(Array.isArray(p2p)).toBe(true);
      for (const id of [...(f2p as string[]), ...(p2p as string[])]) expect(id).toMatch(/^[\w/.-]+\.py::\S/);
    }
    expect(new Set(instances.map((i) => i.instance_id)).size).toBe(instances.length);
  });

  it('every base commit is in its bundle, and the patches apply there alone and together', () => {
    for (const instance of instances) {
      const clone = clones.get(instance.repo)!;
      expect(gitOk(clone, ['cat-file', '-e', `${instance.base_commit}^{commit}`]), instance.instance_id).toBe(
        true,
      );
      git(clone, ['checkout', '-q', '--detach', '-f', instance.base_commit]);
      git(clone, ['clean', '-q', '-fdx']);
      expect(gitOk(clone, ['apply', '--check', '-'], instance.patch), `${instance.instance_id} patch`).toBe(
        true,
      );
      expect(
        gitOk(clone, ['apply', '--check', '-'], instance.test_patch),
        `${instance.instance_id} test_patch`,
      ).toBe(true);
      git(clone, ['apply', '-'], instance.test_patch);
      expect(gitOk(clone, ['apply', '--check', '-'], instance.patch), `${instance.instance_id} both`).toBe(
        true,
      );
    }
  });

  it('test_patch holds the test files and patch everything else; tests named exist in the test patch', () => {
    for (const instance of instances) {
      expect(fileList(instance.test_patch).every(isTestPath), instance.instance_id).toBe(true);
      expect(
        fileList(instance.patch).some((f) => isTestPath(f)),
        instance.instance_id,
      ).toBe(false);
      const testFiles = fileList(instance.test_patch);
      for (const id of JSON.parse(instance.FAIL_TO_PASS) as string[])
        expect(testFiles).toContain(id.split('::')[0]);
    }
  });

  it('no problem statement quotes the gold patch or names a function it changes, and each is short', () => {
    for (const instance of instances) {
      const leaks = statementLeaks(instance.problem_statement, instance.patch, instance.test_patch);
      expect(leaks, instance.instance_id).toEqual([]);
      expect(
        instance.problem_statement.trimEnd().split('\n').length,
        instance.instance_id,
      ).toBeLessThanOrEqual(25);
      expect(instance.hints_text).toBe('');
    }
  });
});
