// One redaction for every output: when the index does not answer, its URL — with its password — is
// in the build's message. The ledger's copy was always redacted; `env build`'s stdout/stderr and
// `fix --output stream-json`'s events are masked by the same secrets (runtime/text/output-guard.ts).
// Real CLI, real engine; the index is a closed port on 127.0.0.1, so nothing leaves the machine.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCliMeasured } from '../helpers/cli-measured.js';
import { removeEnvImagesOf } from '../helpers/env-images.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-redaction-'));
const PASSWORD = 's3cret-Pw_0x7f';
const ENV = {
  PIP_INDEX_URL: `http://alice:${PASSWORD}@127.0.0.1:9/simple`,
  PIP_EXTRA_INDEX_URL: '',
  PIP_FIND_LINKS: '',
  PIP_CONFIG_FILE: '/dev/null',
  HOME: join(dir, 'home'),
  PIPER_LEDGER: '',
  CI: 'true',
};

const repos: string[] = [];
afterAll(() => removeEnvImagesOf(repos));

/** A one-requirement repository (its own path, so each command builds its own environment). */
function repoWithRequirement(name: string): string {
  const repo = join(dir, name);
  mkdirSync(join(repo, 'tests'), { recursive: true });
  writeFileSync(join(repo, 'requirements.txt'), 'attrs\n');
  writeFileSync(join(repo, 'tests', 'test_x.py'), 'def test_x():\n    assert True\n');
  writeFileSync(join(repo, 'ISSUE.md'), 'Nothing to fix.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=t@example.invalid', '-c', 'user.name=t', 'commit', '-qm', 'x');
  repos.push(repo);
  return repo;
}

function ledgerText(repo: string): string {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const rows = ledger.database.prepare('SELECT * FROM environments').all();
    return JSON.stringify(rows);
  } finally {
    ledger.close();
  }
}

describe('the unreachable index is reported without its password (real CLI)', () => {
  it('env build: stdout and stderr say it was not reachable, with the password masked', async () => {
    const repo = repoWithRequirement('build');
    const r = await runCliMeasured(['env', 'build', '--rebuild', '--repo', repo], { env: ENV, cwd: dir });
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(0);
    expect(out).toContain('source pip: your pip sources not reachable (http://alice:***@127.0.0.1:9/simple');
    expect(out).not.toContain(PASSWORD);
    expect(ledgerText(repo)).toContain('not reachable');
    expect(ledgerText(repo)).not.toContain(PASSWORD);
    expect(r.maxRssKb).toBeLessThan(300 * 1024);
  });

  it('fix --output stream-json: no event carries the password', async () => {
    const repo = repoWithRequirement('fix');
    const script = join(dir, 'stop.jsonl');
    writeFileSync(
      script,
      `${JSON.stringify(JSON.stringify({ tool: 'stop', args: { reason: 'nothing to do' } }))}\n`,
    );
    const r = await runCliMeasured(
      [
        'fix',
        '--repo',
        repo,
        '--model',
        `script:${script}`,
        '--test',
        'tests',
        '--output',
        'stream-json',
        join(repo, 'ISSUE.md'),
      ],
      { env: ENV, cwd: dir },
    );
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; sources?: string[] });
    const environment = events.find((e) => e.type === 'environment');
    expect(environment?.sources?.join('\n'), r.stderr).toContain('http://alice:***@127.0.0.1:9/simple');
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });
});
