// Every name from a repository is inert in every output: `index` text shows a file name's OSC, CSI
// and bidi characters as visible escapes; `index --json`, `env plan --json` and the other JSON
// outputs write DEL, C1 and bidi characters as \uXXXX (the same JSON value, nothing a terminal acts
// on); a refusal that echoes a name does too. Real CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-inert-names-'));
// An OSC title, a screen clear, a C1 CSI and a right-to-left override.
const HOSTILE = 'a\x1b]0;PWNED\x07\x1b[2J\u009b31m\u202eb';
// Nothing a terminal acts on: C0 but newline and tab, DEL, C1, the bidi overrides and isolates.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function hostileRepo(): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, `${HOSTILE}.py`), 'def f():\n    pass\n');
  writeFileSync(join(repo, 'requirements.txt'), `attrs --x${HOSTILE}\n`);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', 'commit', '-qm', 'x'], {
    cwd: repo,
  });
  return repo;
}

const repo = hostileRepo();
const run = (args: string[]) => runCli(args, { cwd: dir, env: { PIPER_LEDGER: '', CI: 'true' } });

describe('names from the repository on the terminal (real CLI)', () => {
  it('index: the text shows the name with visible escapes', async () => {
    const r = await run(['index', '--repo', repo]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(ACTIVE);
    expect(r.stdout).toContain('a\\x1b]0;PWNED\\x07\\x1b[2J\\x9b31m\\u202eb.py:1-2');
  });

  it('index --json and env plan --json: the same values, no active character in the bytes', async () => {
    for (const args of [
      ['index', '--repo', repo, '--json'],
      ['env', 'plan', '--repo', repo, '--json'],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(ACTIVE);
      expect(r.stdout).toContain('\\u009b31m\\u202eb');
      // Parsed, it is the exact name again.
      expect(JSON.stringify(JSON.parse(r.stdout))).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    }
  });

  it('a refusal that names what it was given is inert too', async () => {
    const r = await run(['resume', HOSTILE, '--repo', repo, '--answer', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(ACTIVE);
    expect(r.stderr).toContain('\\x1b]0;PWNED');
  });
});
