// Work bounded by the input, with the real CLI: `env plan` on small inputs that used to explode
// (includes that fan out, deep markers, deep and wide include-group graphs, blank lines a pattern
// backtracked over) and on a 130,000-line requirements file its text output used to crash on. Each
// under /usr/bin/time: exit 0 with the plan or exit 2 with one precise line, peak memory bounded.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliMeasured, type MeasuredResult } from '../helpers/cli-measured.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-plan-bounds-'));
let count = 0;

function repo(files: Record<string, string>): string {
  const root = join(dir, `r${count++}`);
  mkdirSync(root);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

async function plan(root: string, ...flags: string[]): Promise<MeasuredResult> {
  const r = await runCliMeasured(['env', 'plan', '--repo', root, ...flags], {
    cwd: dir,
    env: { CI: 'true' },
  });
  expect(r.signal).toBeNull();
  expect(r.stderr).not.toContain('internal error');
  expect(r.stdout + r.stderr).not.toContain('\x1b');
  return r;
}

describe('env plan on inputs that used to explode (real CLI)', () => {
  it('31 requirements files each including the next twice: each read once, with a note', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 31; i++) files[`r${i}.txt`] = `-r r${i + 1}.txt\n-r r${i + 1}.txt\n`;
    files['r31.txt'] = 'attrs\n';
    files['requirements.txt'] = '-r r0.txt\n';
    const r = await plan(repo(files), '--json');
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout) as {
      requirements: Array<{ name: string }>;
      skipped: Array<{ reason: string }>;
    };
    expect(parsed.requirements.map((q) => q.name)).toEqual(['attrs']);
    expect(parsed.skipped.some((s) => s.reason === 'r1.txt is included again: read once')).toBe(true);
    expect(r.maxRssKb).toBeLessThan(200 * 1024);
  });

  it('a marker nested 5,000 deep is one precise line, exit 2', async () => {
    const marker = `${'('.repeat(5000)}python_version > "3"${')'.repeat(5000)}`;
    const r = await plan(repo({ 'requirements.txt': `attrs; ${marker}\n` }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a marker nested deeper than 32 parentheses at column');
    expect(r.maxRssKb).toBeLessThan(200 * 1024);
  });

  it('an include-group chain 8,000 deep is refused; a 2^18 fan-out plans at once', async () => {
    const chain = ['[dependency-groups]', 'test = [{include-group = "c0"}]'];
    for (let i = 0; i < 8000; i++) chain.push(`c${i} = [{include-group = "c${i + 1}"}]`);
    chain.push('c8000 = ["attrs"]');
    const deep = await plan(repo({ 'pyproject.toml': `${chain.join('\n')}\n` }));
    expect(deep.code).toBe(2);
    expect(deep.stderr).toContain('include-group chain deeper than 64 groups (test → … → c63)');

    const fan = ['[dependency-groups]', 'test = [{include-group = "g0"}, {include-group = "g0"}]'];
    for (let i = 0; i < 18; i++)
      fan.push(`g${i} = [{include-group = "g${i + 1}"}, {include-group = "g${i + 1}"}]`);
    fan.push('g18 = ["attrs"]');
    const wide = await plan(repo({ 'pyproject.toml': `${fan.join('\n')}\n` }));
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toContain('attrs');
    expect(wide.maxRssKb).toBeLessThan(200 * 1024);
  });

  it('3 MB of blank lines in a test module and in setup.cfg plan (no pattern backtracks over them)', async () => {
    const blank = '\n'.repeat(3 * 1024 * 1024);
    const r = await plan(repo({ 'test_a.py': blank, 'setup.cfg': blank }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.maxRssKb).toBeLessThan(400 * 1024);
  });

  it('a 130,000-line requirements file: the text output is written, not a crash', async () => {
    const lines = Array.from({ length: 130_000 }, (_, i) => `pkg${i}==1.0`).join('\n');
    const r = await plan(repo({ 'requirements.txt': `${lines}\n` }));
    expect(r.code, r.stderr.slice(0, 500)).toBe(0);
    expect(r.stdout).toContain('Would install (130000):');
    expect(r.maxRssKb).toBeLessThan(600 * 1024);
  });
});
