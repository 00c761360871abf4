// Files keep their owner, through the real CLI and the real sandbox: piper-agent
// run as root (as in a CI container) on a checkout owned by uid 1000 leaves the edited file 1000's
// with its mode, `.piper/` and everything in it 1000's, nothing in the checkout root's, so the
// job's next step as that user (git status, git commit) works; `undo` keeps the owner too.
// Needs root; skipped otherwise.
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';

const RUNNER = 1000;
const asRoot = process.getuid?.() === 0;

/** Every path under `dir` (itself included) whose owner is not uid:gid RUNNER. */
function notRunners(dir: string): string[] {
  const wrong: string[] = [];
  const visit = (path: string) => {
    const st = statSync(path);
    if (st.uid !== RUNNER || st.gid !== RUNNER) wrong.push(`${path} ${st.uid}:${st.gid}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return wrong;
}

/** git as the runner user, the way a CI job's next step runs it. */
function gitAsRunner(repo: string, args: string[]) {
  return spawnSync(
    'setpriv',
    [`--reuid=${RUNNER}`, `--regid=${RUNNER}`, '--clear-groups', 'git', '-C', repo, ...args],
    { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' } },
  );
}

describe.skipIf(!asRoot)(
  'files keep their owner: fix and undo as root on a checkout owned by uid 1000',
  () => {
    it('the edit keeps owner and mode, .piper/ is the checkout owner’s, git works as that user', async () => {
      const repo = sampleRepo();
      // The temp parent is root's 0700: let the runner user reach the checkout.
      chmodSync(dirname(repo), 0o755);
      const words = join(repo, 'textstats', 'words.py');
      chmodSync(words, 0o640);
      expect(spawnSync('chown', ['-R', `${RUNNER}:${RUNNER}`, repo]).status).toBe(0);

      const r = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'json'));
      expect(r.code, r.stderr).toBe(0);
      const runId = (JSON.parse(r.stdout) as { run_id: string }).run_id;
      expect(readFileSync(words, 'utf8')).toContain('return ranked[:n]');
      expect(statSync(words).mode & 0o7777).toBe(0o640);

      // `.piper/` (made for the run lock; the ledger is in the state directory, not the checkout)
      // and everything else in the checkout.
      expect(readdirSync(join(repo, '.piper'))).toEqual(['.gitignore']);
      expect(notRunners(repo)).toEqual([]);

      const status = gitAsRunner(repo, ['status', '--porcelain']);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toContain('textstats/words.py');
      const commit = gitAsRunner(repo, [
        '-c',
        'user.name=runner',
        '-c',
        'user.email=runner@example.invalid',
        'commit',
        '-q',
        '-am',
        'the fix',
      ]);
      expect(commit.status, commit.stderr).toBe(0);

      // Undo (as root again) restores the bytes and still leaves the file and .piper/ the runner's.
      const before = gitAsRunner(repo, ['show', 'HEAD~1:textstats/words.py']).stdout;
      const undo = await runCli(['undo', runId, '--repo', repo]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(readFileSync(words, 'utf8')).toBe(before);
      expect(statSync(words).mode & 0o7777).toBe(0o640);
      expect(notRunners(repo)).toEqual([]);
    });
  },
);
