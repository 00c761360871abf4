// What a repository brings is read on the host only through the one bounded reader
// (runtime/host/inside-repo.ts): regular files inside the repository, never blocking on a FIFO or a
// device, refused before reading past the limit of their kind. Each hostile case runs the real CLI
// under /usr/bin/time: a precise one-line refusal (exit 2) or a note, bounded peak memory, no hang.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliMeasured, type MeasuredResult } from '../helpers/cli-measured.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-host-reads-'));
const MAX_RSS_KB = 300 * 1024;
let count = 0;

function repo(files: (root: string) => void): string {
  const root = join(dir, `r${count++}`);
  mkdirSync(join(root, '.piper'), { recursive: true });
  writeFileSync(join(root, 'test_x.py'), 'def test_x():\n    pass\n');
  files(root);
  return root;
}

function piper(args: string[]): Promise<MeasuredResult> {
  return runCliMeasured(args, { cwd: dir, env: { PIPER_LEDGER: '', CI: 'true' } });
}

function expectBounded(r: MeasuredResult): void {
  expect(r.signal).toBeNull();
  expect(r.maxRssKb).toBeLessThan(MAX_RSS_KB);
  expect(r.stdout + r.stderr).not.toContain('\x1b');
}

describe('a repository’s files on the host (real CLI)', () => {
  for (const name of ['pyproject.toml', 'requirements.txt']) {
    it(`a 1 GiB (sparse) ${name} is refused before it is read, naming it and its size`, async () => {
      const root = repo((r) => {
        writeFileSync(join(r, name), '');
        truncateSync(join(r, name), 1024 ** 3);
      });
      const r = await piper(['env', 'plan', '--repo', root]);
      expectBounded(r);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toBe(
        `piper-agent: ${name} is 1 GiB, over the 4 MiB a declaration file may have; not read`,
      );
    });
  }

  it('a FIFO at .piper/config.json is skipped with a note, never waited on', async () => {
    const root = repo((r) => execFileSync('mkfifo', [join(r, '.piper', 'config.json')]));
    const r = await piper(['config', '--repo', root]);
    expectBounded(r);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "note: .piper/config.json is a fifo, not a regular file; not read; the repository's configuration is ignored",
    );
  });

  it('a FIFO as the recipe is skipped with a note in the plan', async () => {
    const root = repo((r) => execFileSync('mkfifo', [join(r, '.piper', 'sandbox.toml')]));
    const r = await piper(['env', 'plan', '--repo', root]);
    expectBounded(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('.piper/sandbox.toml is a fifo, not a regular file; not read (skipped)');
  });

  it('a recipe linked to /dev/zero and a requirements file linked to a host file are not read', async () => {
    const root = repo((r) => {
      symlinkSync('/dev/zero', join(r, '.piper', 'sandbox.toml'));
      writeFileSync(join(r, 'requirements.txt'), 'attrs\n');
      symlinkSync('/etc/passwd', join(r, 'requirements-dev.txt'));
    });
    const r = await piper(['env', 'plan', '--repo', root, '--json']);
    expectBounded(r);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { inputs: Array<{ path: string }>; recipe: unknown };
    expect(plan.inputs.map((i) => i.path)).toEqual(['requirements.txt']);
    expect(plan.recipe).toBeNull();
    expect(r.stdout).not.toContain('root:x:0:0');
  });

  it('a model script that is /dev/zero is refused in one line, not read', async () => {
    const root = repo(() => undefined);
    writeFileSync(join(root, 'ISSUE.md'), 'nothing\n');
    const r = await piper([
      'fix',
      '--repo',
      root,
      '--model',
      'script:/dev/zero',
      '--non-interactive',
      join(root, 'ISSUE.md'),
    ]);
    expectBounded(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the model script /dev/zero is a device, not a regular file; not read');
  });
});
