// The committed JavaScript/TypeScript task set (eval/tasks/real-js/), checked cheaply for format and
// soundness: every line is an instance of SWE-bench's shape with a JavaScript log parser, its
// bundle (two commits: the upstream fix's parent tree, then the fix's tree) holds its base commit,
// its patch and test patch apply there alone and together, the split puts the test files in the
// test patch, each list names tests in its parser's form, and no problem statement gives the fix
// away. The sandbox validation and `ab` over the set are test/eval/real-js-set.test.ts.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneBundle, git, gitOk } from '../../eval/swebench/git.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { isJsLogParser } from '../../eval/swebench/js-test-names.js';
import { statementLeaks } from '../../eval/swebench/leaks.js';
import { isTestPath } from '../../eval/swebench/split.js';
import { packageRoot } from '../../runtime/package-root.js';

const SET = join(packageRoot(), 'eval', 'tasks', 'real-js');
const instances = loadInstances(join(SET, 'instances.jsonl'));
const scratch = mkdtempSync(join(tmpdir(), 'real-js-set-'));
const clones = new Map<string, string>();
const bundleOf = (repo: string) => join(SET, 'repos', `${repo.split('/')[1]}.bundle`);
const filesOf = (patch: string) => [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]!);

beforeAll(() => {
  for (const repo of new Set(instances.map((i) => i.repo))) {
    const clone = join(scratch, repo.replace('/', '__'));
    cloneBundle(bundleOf(repo), clone, { checkout: false });
    clones.set(repo, clone);
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the committed JavaScript/TypeScript task set', () => {
  it('has 3 to 6 instances, one repository each, every bundle small, every parser a JavaScript one', () => {
    expect(instances.length).toBeGreaterThanOrEqual(3);
    expect(instances.length).toBeLessThanOrEqual(6);
    expect(new Set(instances.map((i) => i.repo)).size).toBe(instances.length);
    for (const i of instances) {
      expect(statSync(bundleOf(i.repo)).size, i.repo).toBeLessThan(256 * 1024);
      expect(isJsLogParser(i.log_parser), i.instance_id).toBe(true);
      expect(i.instance_id).toMatch(new RegExp(`^${i.repo.replace('/', '__')}-[0-9a-f]{7}$`));
      expect(i.base_commit).toMatch(/^[0-9a-f]{40}$/);
    }
    // One instance per parser kind the set means to cover.
    expect(new Set(instances.map((i) => i.log_parser))).toEqual(
      new Set(['parse_log_jest', 'parse_log_vitest', 'parse_log_mocha', 'parse_log_tap']),
    );
  });

  it('every base commit is in its bundle, and the patches apply there alone and together', () => {
    for (const i of instances) {
      const clone = clones.get(i.repo)!;
      expect(gitOk(clone, ['cat-file', '-e', `${i.base_commit}^{commit}`]), i.instance_id).toBe(true);
      git(clone, ['checkout', '-q', '--detach', '-f', i.base_commit]);
      git(clone, ['clean', '-q', '-fdx']);
      expect(gitOk(clone, ['apply', '--check', '-'], i.patch), `${i.instance_id} patch`).toBe(true);
      expect(gitOk(clone, ['apply', '--check', '-'], i.test_patch), `${i.instance_id} test_patch`).toBe(true);
      git(clone, ['apply', '-'], i.test_patch);
      expect(gitOk(clone, ['apply', '--check', '-'], i.patch), `${i.instance_id} both`).toBe(true);
    }
  });

  it("test_patch holds the test files and patch the rest; each name is in its parser's form", () => {
    for (const i of instances) {
      expect(filesOf(i.test_patch).every(isTestPath), i.instance_id).toBe(true);
      expect(filesOf(i.patch).some(isTestPath), i.instance_id).toBe(false);
      expect(i.FAIL_TO_PASS.length, i.instance_id).toBeGreaterThan(0);
      for (const name of [...i.FAIL_TO_PASS, ...i.PASS_TO_PASS]) {
        if (i.log_parser === 'parse_log_vitest') expect(name).toMatch(/^src\/[\w.-]+\.ts > \S/);
        if (i.log_parser === 'parse_log_tap') expect(name).toMatch(/^- \S/);
        expect(name).not.toContain(' › ');
      }
    }
  });

  it('no problem statement quotes the gold patch or names a function it changes', () => {
    for (const i of instances) {
      expect(statementLeaks(i.problem_statement, i.patch, i.test_patch), i.instance_id).toEqual([]);
      expect(i.problem_statement.trimEnd().split('\n').length, i.instance_id).toBeLessThanOrEqual(25);
      expect(readFileSync(join(SET, 'statements', `${i.instance_id}.txt`), 'utf8').trim()).toBe(
        i.problem_statement,
      );
    }
  });
});
