// The environment build seen from the TUI on a real terminal (tmux): a project whose environment
// really builds (debian-src: pip finds nothing in an empty wheelhouse, Debian's packages meet every
// requirement) shows the build as one progress line with its phase and elapsed time, and when the
// run ends the final screen is the last thing on the terminal: no pip or dpkg line below it, and a
// header that does not say `pip: failed` of a build that succeeded. A build that fails ends with
// its last lines on stderr. The whole log is in the ledger either way.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { CLI } from '../helpers/cli.js';
import { MODELS } from '../helpers/sample-repo.js';
import { tmuxSession } from '../helpers/tmux.js';

const engine = new DockerEngine();
const scratch = mkdtempSync(join(tmpdir(), 'piper-env-tui-'));
const repos: string[] = [];
// An empty wheelhouse: pip runs and finds nothing ("No matching distribution"), as on a machine
// whose wheelhouse lacks the project's packages; Debian's packages then meet every requirement.
const wheelhouse = join(scratch, 'wheels');
mkdirSync(wheelhouse);

function newRepo(name: string, files: Record<string, string>): string {
  const src = join(scratch, `${name}-src`);
  cpSync(join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'), src, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(src, path), text);
  const repo = copyAsGitRepo(src, join(scratch, name), 'fixture');
  repos.push(repo);
  return repo;
}

/** `fix` in the TUI on the repository, stderr kept on the terminal, its exit code left on the screen. */
function tuiFix(repo: string, ...flags: string[]): string {
  return [
    // An index that never answers: the fallback from Debian's packages, whatever this machine reaches.
    `env -u CI -u PIP_EXTRA_INDEX_URL PIP_INDEX_URL=http://127.0.0.1:9/simple/ PIP_RETRIES=0 PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS=${wheelhouse} NO_COLOR=1`,
    process.execPath,
    CLI,
    'fix',
    ...flags,
    '--repo',
    repo,
    '--model',
    `script:${join(MODELS, 'stop-at-once.jsonl')}`,
    '--test',
    'tests/test_tinycalc.py',
    "'tinycalc: check the money sums'",
    '; echo EXIT=$?; sleep 120',
  ].join(' ');
}

/** What a pip or dpkg line looks like on a terminal (the build's output, indented under its step). */
const BUILD_OUTPUT =
  /Unpacking |Setting up |Selecting previously|Looking in links|No matching distribution|^ {2}\[\w+\]/m;

const terminal = tmuxSession(`piper-env-tui-${process.pid}`, 300_000);
afterAll(async () => {
  terminal.kill();
  for (const repo of repos) {
    for (const image of await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]))
      await engine.removeImage(image.id).catch(() => undefined);
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('the environment build in the TUI', () => {
  it('is one progress line while it runs, and leaves the final screen last', async () => {
    const repo = newRepo('builds', {});
    terminal.start(tuiFix(repo), 100, 40);
    const building = await terminal.waitFor(/building the environment: .+ · \d+\.\d s/, 120_000, 50);
    expect(building).not.toMatch(BUILD_OUTPUT);
    const end = await terminal.waitFor('EXIT=', 300_000);
    expect(end).toContain('EXIT=4');
    const all = terminal.screen({ history: true });
    expect(all).toMatch(/environment: piper-env-\S+ \(built in \d+\.\d s\)/);
    expect(all).not.toContain('pip: failed');
    expect(all).not.toMatch(BUILD_OUTPUT);
    // After the final screen's last line (the run id): at most a word to the user (the one line
    // that says this build is a fallback from Debian's packages, as the index does not answer here;
    // a start-up sweep of another process's leftovers, say), never the build's lines, then the exit
    // code. Each as written, however the terminal wrapped it.
    const joined = terminal.screen({ history: true, join: true });
    const after = joined
      .slice(joined.lastIndexOf('run r-'))
      .split('\n')
      .slice(1)
      .map((line) => line.trimEnd())
      .join('\n')
      .trim()
      .split('\n');
    expect(after).toContainEqual(
      expect.stringMatching(/^environment: fallback build from Debian's packages: /),
    );
    expect(after.at(-1)).toBe('EXIT=4');
    expect(after.length).toBeLessThanOrEqual(4);
    for (const line of after) expect(line).not.toMatch(/^\s|environment \S+: |^building /);

    // The build's record is the ledger's: every step with its command, exit code and output tail.
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const row = ledger.database.prepare("SELECT * FROM environments WHERE status = 'built'").get() as {
      sources: string;
      steps: string;
    };
    ledger.close();
    expect(row.sources).toContain('pip: ');
    expect(row.sources).toContain('debian: python3-attr');
    const steps = JSON.parse(row.steps) as Array<{ name: string; command: string; output_tail: string }>;
    expect(steps.map((s) => s.name)).toEqual(expect.arrayContaining(['pip', 'debian', 'project']));
    // apt's own words, or where its packages came from when a build before this one installed them.
    const debian = steps.find((s) => s.name === 'debian')!;
    expect(`${debian.command}\n${debian.output_tail}`).toMatch(
      /Setting up|Unpacking|^reused piper-debian-packages:/,
    );
  }, 400_000);

  it('a build that fails (strict) ends with its last lines on stderr, and the reason', async () => {
    const repo = newRepo('fails', { 'requirements.txt': 'no-such-dist-piper==1.0\n' });
    const t = tmuxSession(`piper-env-tui-fail-${process.pid}`, 300_000);
    try {
      t.start(tuiFix(repo, '--env', 'strict'), 120, 60);
      const end = await t.waitFor('EXIT=', 300_000);
      expect(end).toContain('EXIT=2');
      const all = t.screen({ history: true });
      expect(all).toMatch(/the environment build's last \d+ of \d+ line\(s\) \(all of them: --verbose\):/);
      expect(all).toContain('No matching distribution');
      expect(all).toContain('cannot satisfy 1 requirement(s) in any source');
    } finally {
      t.kill();
    }
  }, 400_000);
});
