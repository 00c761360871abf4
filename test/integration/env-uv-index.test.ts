// uv's index settings in a real build, against the engine and pip, with a local index on
// 127.0.0.1: the user's uv.toml names a default index whose login is uv's
// UV_INDEX_<NAME>_USERNAME / _PASSWORD, and the environment comes from it with no password in the
// output, the ledger or the image; a repository's [[tool.uv.index]] is used only when the user
// trusts the repository, and otherwise ignored with one note (the build then asks the user's own).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex, type SimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-uv-');
afterAll(() => repos.cleanup(engine));

const PASSWORD = 'uv-login-s3cret-7Hq';
const FALLBACK = /^environment: fallback build from Debian's packages/m;

let dir: string;
let open: SimpleIndex;
let locked: SimpleIndex;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'piper-uv-wheels-'));
  const wheel = buildWheel(dir, 'uvlib', '3.1', { 'uvlib/__init__.py': '__version__ = "3.1"\n' });
  open = await serveSimpleIndex([wheel]);
  locked = await serveSimpleIndex([wheel], { user: 'ci', password: PASSWORD });
});
afterAll(async () => {
  await Promise.all([open.close(), locked.close()]);
});

function project(name: string, pyproject = ''): string {
  return repos.newRepo(name, {
    'requirements.txt': 'uvlib==3.1\n',
    ...(pyproject ? { 'pyproject.toml': pyproject } : {}),
    'tests/test_uvlib.py': 'import uvlib\n\ndef test_uvlib():\n    assert uvlib.__version__ == "3.1"\n',
  });
}

/** The project's images as the engine keeps them: inspect and history. */
function imageRecords(repo: string): string {
  const ids = execFileSync(
    'docker',
    ['images', '-q', '--no-trunc', '--filter', `label=${ENV_LABEL.project}=${projectId(repo)}`],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
  expect(ids.length).toBeGreaterThan(0);
  return ids
    .map(
      (id) =>
        execFileSync('docker', ['image', 'inspect', id], { encoding: 'utf8' }) +
        execFileSync('docker', ['history', '--no-trunc', id], { encoding: 'utf8' }),
    )
    .join('\n');
}

function ledgerText(repo: string): string {
  const ledger = defaultLedgerPath(repo);
  return [ledger, `${ledger}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

function builtFrom(repo: string, index: SimpleIndex): void {
  const row = envRows(repo).find((r) => r.status === 'built')!;
  expect(row.sources).toContain('sources: index');
  expect(JSON.parse(row.resolved)).toContainEqual({ name: 'uvlib', version: '3.1', source: 'pip' });
  expect(index.requests.some((q) => q.path === '/files/uvlib-3.1-py3-none-any.whl' && q.authorized)).toBe(
    true,
  );
}

describe("the user's uv settings", { timeout: 300_000 }, () => {
  it("a uv.toml default index with uv's login: built from it, the password nowhere", async () => {
    const conf = join(dir, 'uv.toml');
    const url = locked.url.replace(/\/\/[^@]*@/, '//');
    writeFileSync(conf, `[[index]]\nname = "corp-index"\nurl = "${url}"\ndefault = true\n`);
    const env = {
      ...NO_PIP,
      // No index of pip's: uv's is the user's index.
      PIP_INDEX_URL: '',
      PIP_RETRIES: '1',
      UV_NO_CONFIG: '',
      UV_CONFIG_FILE: conf,
      UV_INDEX_CORP_INDEX_USERNAME: 'ci',
      UV_INDEX_CORP_INDEX_PASSWORD: PASSWORD,
      PIPER_WHEEL_CACHE: join(dir, 'cache-user'),
    };
    const repo = project('user-uv');
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).not.toMatch(FALLBACK);
    builtFrom(repo, locked);
    const places = { output: r.stdout + r.stderr, ledger: ledgerText(repo), images: imageRecords(repo) };
    for (const [where, text] of Object.entries(places))
      expect(text.includes(PASSWORD), `${where} holds the password`).toBe(false);
  });
});

describe("a repository's [[tool.uv.index]]", { timeout: 300_000 }, () => {
  const pyproject = () => `[[tool.uv.index]]\nname = "project-index"\nurl = "${open.url}"\ndefault = true\n`;

  it('is ignored with one note when the repository is not trusted', async () => {
    const repo = project('repo-uv-untrusted', pyproject());
    const asked = open.requests.length;
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(
      r.stderr.match(/ignored the index URL\(s\) the repository names/g),
      r.stderr.slice(-3000),
    ).toHaveLength(1);
    // The user's own index (here one that never answers) is what was asked: a visible fallback.
    expect(r.stderr).toMatch(FALLBACK);
    expect(open.requests.length).toBe(asked);
  });

  it('is the index when the repository is trusted', async () => {
    const repo = project('repo-uv-trusted', pyproject());
    const env = { ...NO_PIP, PIPER_WHEEL_CACHE: join(dir, 'cache-repo') };
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json', '--trust-repo-config'], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).not.toMatch(FALLBACK);
    builtFrom(repo, open);
  });
});
