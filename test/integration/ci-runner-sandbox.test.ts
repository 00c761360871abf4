// The sandbox is a CI runner's, through the real CLI, the real image and real pytest: the legacy
// zone names, the C preprocessor, a script a test wrote in tmp_path run from there, EACCES on a
// root-owned path for the non-root user (ci-system, the bare image); and a program the tests run
// (patch) added to the environment by the plan, which says why (ci-programs, one environment build).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';

// pip pointed at an index that never answers: Debian's packages serve, whatever this machine reaches.
const NO_PIP = {
  PIP_INDEX_URL: 'http://127.0.0.1:9/simple/',
  PIP_RETRIES: '0',
  PIP_EXTRA_INDEX_URL: '',
  PIP_FIND_LINKS: '',
  CI: 'true',
};
const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'env-projects');
const engine = new DockerEngine();
const scratch = mkdtempSync(join(tmpdir(), 'piper-ci-sandbox-'));
const repos: string[] = [];

function fixtureRepo(name: string): string {
  const src = join(scratch, `${name}-src`);
  cpSync(join(FIXTURES, name), src, { recursive: true });
  const repo = copyAsGitRepo(src, join(scratch, name), 'fixture');
  repos.push(repo);
  return repo;
}

/** Every path on the root filesystem the sandbox's user could write, its mounts left out. */
const WRITABLE_WALK = `
import os
mounts = {line.split()[4] for line in open("/proc/self/mountinfo")}
skip = mounts | {"/proc", "/sys", "/dev"}
writable = []
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in skip]
    for path in [top] + [os.path.join(top, n) for n in dirs + files]:
        if path not in skip and not os.path.islink(path) and os.access(path, os.W_OK):
            writable.append(path)
print("writable:", sorted(set(writable)))
`;

interface RunTestJson {
  passed: boolean;
  output: string;
  counts?: { passed: number; failed: number; errors: number; skipped: number };
}

async function runTest(repo: string): Promise<RunTestJson> {
  const r = await runCli(['run-test', 'python -m pytest -q -rA tests', '--repo', repo, '--json'], {
    env: NO_PIP,
  });
  expect(r.code, `${r.stdout}\n${r.stderr.slice(-3000)}`).toBe(0);
  return JSON.parse(r.stdout) as RunTestJson;
}

afterAll(async () => {
  for (const repo of repos) {
    for (const image of await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]))
      await engine.removeImage(image.id).catch(() => undefined);
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe("a CI runner's system in the sandbox", () => {
  it('has the legacy zone names and cpp, runs a script from tmp_path, and gives EACCES on /x', async () => {
    const result = await runTest(fixtureRepo('ci-system'));
    expect(result.counts, result.output).toEqual({ passed: 4, failed: 0, errors: 0, skipped: 0 });
    for (const name of [
      'test_legacy_zone_name',
      'test_c_preprocessor',
      'test_runs_a_script_it_wrote_in_tmp_path',
      'test_root_owned_path_is_eacces_for_a_non_root_user',
    ])
      expect(result.output).toContain(`PASSED tests/test_runner_system.py::${name}`);
  });
});

describe('programs the tests run', () => {
  it("adds patch's Debian package to the environment, says why, and the suite runs it", async () => {
    const repo = fixtureRepo('ci-programs');
    const plan = await runCli(['env', 'plan', '--repo', repo, '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { apt: string[]; decisions: string[] };
    expect(json.apt).toEqual(['patch']);
    expect(json.decisions).toContain('apt patch: tests/test_patching.py:18 runs patch (subprocess.run)');
    expect(json.decisions).toContain(
      'tests/test_patching.py:27 runs git (shutil.which): the sandbox image has it',
    );
    const result = await runTest(repo);
    expect(result.counts, result.output).toEqual({ passed: 3, failed: 0, errors: 0, skipped: 0 });
    // The environment image, built as root with apt, leaves its user no writable path on the root
    // filesystem either: only the size-capped tmpfs mounts.
    const r = await runCli(['execute', '--repo', repo, '--code', WRITABLE_WALK, '--json'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const receipt = JSON.parse(r.stdout) as { stdout: string; image: string };
    expect(receipt.image).toMatch(/^piper-env-/);
    expect(receipt.stdout).toBe('writable: []\n');
  });
});
