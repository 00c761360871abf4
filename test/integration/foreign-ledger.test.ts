// A ledger is data, not configuration: one from elsewhere (another machine's, a copy, a file
// edited since) can name an image piper never built, a model script anywhere on the host, an
// approval mode and caps nobody here chose. `resume` takes a run's settings only when this machine
// recorded starting that run with them (the state directory's record); any other run is resumed as
// `replay` would run it. And a ledger a repository tracks in git is not opened at all, even when
// named. Real CLI, real sandbox.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { packDirectory } from '../../runtime/images/pack-dir.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCliMeasured, type MeasuredResult } from '../helpers/cli-measured.js';
import { removeEnvImagesOf } from '../helpers/env-images.js';
import { engine } from '../helpers/sandbox.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const root = packageRoot();
const dir = mkdtempSync(join(tmpdir(), 'piper-foreign-ledger-'));
const ASK = join(root, 'test/fixtures/models/sample-ask.jsonl');
const FOREIGN_IMAGE = `piper-test-foreign-ledger:${process.pid}`;
let repo: string;
let runId: string;

/** The real CLI with this machine's state (its record of the images and runs piper made here). */
function cli(args: string[], env: Record<string, string> = {}): Promise<MeasuredResult> {
  return runCliMeasured(args, { cwd: dir, env: { PIPER_LEDGER: '', CI: 'true', ...env } });
}

function plant(sql: string, ...params: unknown[]): void {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    ledger.database.prepare(sql).run(...params, runId);
  } finally {
    ledger.close();
  }
}

/** One line on stderr (the problem and its flag), exit 2, no escape byte, bounded memory. */
function expectRefusal(r: MeasuredResult, ...parts: string[]): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  for (const part of parts) expect(lines[0]).toContain(part);
  expect(r.stderr + r.stdout).not.toContain('\x1b');
  expect(r.maxRssKb).toBeLessThan(300 * 1024);
}

beforeAll(async () => {
  repo = copyAsGitRepo(join(root, 'test/fixtures/sample-repo'), join(dir, 'repo'), 'sample');
  const r = await cli(
    [
      'fix',
      '--repo',
      repo,
      '--model',
      `script:${ASK}`,
      '--test',
      'tests/test_words.py',
      '--output',
      'json',
      join(repo, 'ISSUE.md'),
    ],
    { PIPER_APPROVAL: 'auto' },
  );
  expect(r.code, r.stderr).toBe(3);
  runId = (JSON.parse(r.stdout) as { run_id: string }).run_id;
  // A child of the sandbox image: the same files, not an image piper recorded building.
  const context = mkdtempSync(join(dir, 'image-'));
  writeFileSync(join(context, 'Dockerfile'), `FROM ${loadRecipe().ref}\nLABEL piper.test=foreign-ledger\n`);
  await engine.buildImage(packDirectory(context), { t: FOREIGN_IMAGE, labels: {} }, () => {});
});

afterAll(async () => {
  await engine.removeImage(FOREIGN_IMAGE).catch(() => undefined);
  await removeEnvImagesOf([repo]);
});

describe('resume of a run this machine did not record (real CLI)', () => {
  it('never opens a model script a tampered ledger names, even for a run id this machine knows', async () => {
    plant(`UPDATE runs SET model = 'script:/dev/zero' WHERE id = ?`);
    const r = await cli(['resume', runId, '--repo', repo, '--answer', 'yes']);
    expectRefusal(
      r,
      `run ${runId} was not started on this machine`,
      'script:/dev/zero',
      '--model script:FILE',
    );
  });

  it('refuses a recorded image piper did not build, naming the flag that runs it anyway', async () => {
    plant(`UPDATE runs SET config = json_set(config, '$.image', ?) WHERE id = ?`, FOREIGN_IMAGE);
    const rest = join(dir, 'rest.jsonl');
    writeFileSync(rest, readFileSync(ASK, 'utf8').trim().split('\n').slice(-3).join('\n'));
    const r = await cli([
      'resume',
      runId,
      '--repo',
      repo,
      '--answer',
      'yes',
      '--model',
      `script:${rest}`,
      '--approval',
      'auto',
    ]);
    expectRefusal(
      r,
      `ran in the image ${FOREIGN_IMAGE}, which piper did not build`,
      `--image ${FOREIGN_IMAGE}`,
    );
  });

  it('takes no approval mode or cap above the user’s own configuration, and says so', async () => {
    plant(
      `UPDATE runs SET config = json_set(config, '$.image', ?, '$.approval', 'auto', '$.maxTurns', 400) WHERE id = ?`,
      loadRecipe().ref,
    );
    const rest = join(dir, 'rest.jsonl');
    const r = await cli(
      ['resume', runId, '--repo', repo, '--answer', 'yes', '--model', `script:${rest}`, '--output', 'json'],
      { PIPER_APPROVAL: 'read-only' },
    );
    expect(r.stderr).toContain('its approval mode auto is left out (pass --approval auto to resume with it)');
    expect(r.stderr).toContain('its cap maxTurns 400 is above yours (30); set --max-turns N to raise it');
    expect(r.maxRssKb).toBeLessThan(300 * 1024);
    // Read-only: the edit the script proposes is refused, and the repository is as it was.
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repo, encoding: 'utf8' }),
    ).toBe('');
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      expect(editsForRun(ledger, runId)).toEqual([]);
    } finally {
      ledger.close();
    }
  });

  it('refuses a recorded repository other than the ledger’s own unless --repo names one', async () => {
    plant(`UPDATE runs SET repo = '/etc' WHERE id = ?`);
    const r = await cli(['resume', runId, '--ledger', defaultLedgerPath(repo), '--answer', 'yes']);
    expectRefusal(r, 'names the repository /etc', 'pass --repo DIR');
  });
});

describe('a ledger the repository tracks in git', () => {
  it('is never opened, even named by --ledger or PIPER_LEDGER: exit 2, saying why', async () => {
    const committed = join(repo, '.piper', 'ledger.db');
    mkdirSync(dirname(committed), { recursive: true });
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      ledger.database.prepare('VACUUM INTO ?').run(committed);
    } finally {
      ledger.close();
    }
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: repo });
    git('add', '-f', '.piper/ledger.db');
    git('commit', '-q', '-m', 'a ledger of our own');
    for (const r of [
      await cli(['ledger', 'runs', '--ledger', committed]),
      await cli(['resume', runId, '--repo', repo, '--answer', 'yes'], { PIPER_LEDGER: committed }),
    ]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`the ledger ${committed} is tracked by git in ${repo}`);
      expect(r.stderr).toContain('leave --ledger and PIPER_LEDGER unset');
      expect(r.stdout).not.toContain(runId);
    }
  });
});
