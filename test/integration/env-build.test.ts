// Project environments against the real engine, real pip and real apt: a src-layout project
// with Debian-provided dependencies runs its whole suite through `run-test`; a second run and a README
// edit reuse the image; its run containers still have no network; a wheelhouse and a local PEP 503
// index with credentials go through pip without the credentials landing anywhere; a requirement
// no source meets is relaxed or left out (best effort), or fails naming every source (strict); a
// user-provided image is used as it is.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-');
const newRepo = repos.newRepo;
const scratch = repos.scratch;
afterAll(() => repos.cleanup(engine));

describe('a src-layout project whose dependencies come from Debian', () => {
  let repo: string;
  beforeAll(() => {
    repo = newRepo('debian-src', {}, join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'));
  });

  it('runs its whole suite through run-test: imports, installed metadata and entry points', async () => {
    // Rebuilt: Debian's packages installed by this build (a layer of them kept by an earlier run is not used).
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json', '--env', 'rebuild'], {
      env: NO_PIP,
    });
    expect(r.stderr).toContain('building the environment');
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(r.stdout) as { passed: boolean; counts: { passed: number; failed: number } };
    expect(result.counts).toMatchObject({ passed: 5, failed: 0 });
    const [row] = envRows(repo);
    expect(row!.status).toBe('built');
    expect(row!.sources).toContain('debian: python3-attr');
    const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string; source: string }>;
    expect(resolved).toContainEqual(expect.objectContaining({ name: 'attrs', source: 'debian' }));
    expect(resolved).toContainEqual({ name: 'tinycalc', version: '0.3.1', source: 'project' });
    // Only the dependency step had a network; the project's own build ran with none.
    const steps = JSON.parse(row!.steps) as Array<{ name: string; network: string; seconds: number }>;
    // An index that does not answer (NO_PIP): the probe knows, pip is not run, Debian's packages serve.
    const probe = steps.find((s) => s.name === 'index probe')!;
    console.log(`index probe of an index that does not answer: ${probe.seconds.toFixed(1)} s`);
    expect(steps.some((s) => s.name === 'pip')).toBe(false);
    expect(row!.sources).toContain('pip: your pip sources not reachable');
    expect(steps.find((s) => s.name === 'debian')!.network).not.toBe('none');
    expect(steps.find((s) => s.name === 'project')!.network).toBe('none');
    // The execution names its environment.
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const exec = ledger.database.prepare('SELECT env_key, image FROM executions').get() as {
      env_key: string;
      image: string;
    };
    ledger.close();
    expect(exec.env_key).toBe(row!.key);
    expect(exec.image).toBe(row!.image);
  });

  it('reuses the image on the next run; after a README edit, only the project phase runs again', async () => {
    const again = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(again.stderr).not.toContain('building the environment');
    // Another checkout: what its build produced is keyed by every snapshot file; the dependencies
    // (no repository code ran there) are the kept image of the same declarations.
    writeFileSync(join(repo, 'README.md'), 'edited\n');
    const edited = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(edited.code).toBe(0);
    const rows = envRows(repo);
    expect(rows.map((r) => r.status)).toEqual(['built', 'hit', 'built']);
    expect(rows[1]!.key).toBe(rows[0]!.key);
    expect(rows[2]!.key).not.toBe(rows[0]!.key);
    expect(rows[2]!.sources).toContain('dependencies: reused');
    const steps = JSON.parse(rows[2]!.steps) as Array<{ name: string }>;
    expect(steps.some((s) => s.name === 'venv')).toBe(false);
    // `env ls` marks them as this repository's; `env plan` says why each requirement is there.
    const ls = await runCli(['env', 'ls', '--json', '--repo', repo]);
    const listed = JSON.parse(ls.stdout) as Array<{ tags: string[]; this_repo: boolean }>;
    const mine = listed.filter((i) => i.this_repo).flatMap((i) => i.tags);
    expect(mine).toEqual(expect.arrayContaining([rows[0]!.image, rows[2]!.image]));
    expect(mine.filter((t) => t.endsWith('-deps'))).toHaveLength(1);
    const plan = await runCli(['env', 'plan', '--repo', repo]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /runtime\s+attrs>=22\.1\s+python3-attr\s+pyproject\.toml \[project\]\.dependencies/,
    );
  });

  it('gives its run containers no network: nothing on 127.0.0.1 is reached, only lo exists', async () => {
    const server = createServer();
    let connections = 0;
    server.on('connection', (s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const code = [
      'import os, socket',
      'print(sorted(os.listdir("/sys/class/net")))',
      'try:',
      `    socket.create_connection(("127.0.0.1", ${port}), timeout=2)`,
      '    print("connected")',
      'except OSError as e:',
      '    print("refused", type(e).__name__)',
    ].join('\n');
    const r = await runCli(['execute', '--repo', repo, '--code', code, '--json'], { env: NO_PIP });
    server.close();
    expect(r.code, r.stderr).toBe(0);
    const receipt = JSON.parse(r.stdout) as { stdout: string; image: string };
    expect(receipt.image).toMatch(/^piper-env-/);
    expect(receipt.stdout).toContain("['lo']");
    expect(receipt.stdout).toContain('refused');
    expect(connections).toBe(0);
  });
});

describe("Debian's lists and apt's binary cache, kept between builds", () => {
  it('fetches the lists and packages once, then reuses them and the cache apt made of them; no image holds any', async () => {
    const cache = join(scratch, 'xdg-cache');
    const env = { ...NO_PIP, XDG_CACHE_HOME: cache };
    const repo = newRepo(
      'apt-cache',
      {},
      join(packageRoot(), 'test', 'fixtures', 'env-projects', 'debian-src'),
    );
    const pyproject = join(repo, 'pyproject.toml');
    const debianStep = (i: number) =>
      (
        JSON.parse(envRows(repo)[i]!.steps) as Array<{ name: string; command: string; output_tail: string }>
      ).find((s) => s.name === 'debian')!;
    const build = async (version: string, extra: Record<string, string> = {}, flags: string[] = []) => {
      writeFileSync(
        pyproject,
        readFileSync(pyproject, 'utf8').replace(/version = "[^"]*"/, `version = "${version}"`),
      );
      const r = await runCli(['env', 'build', '--repo', repo, ...flags], { env: { ...env, ...extra } });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
    };
    const dir = join(cache, 'piper-agent', 'apt', loadRecipe().suite);
    // Rebuilt: a Debian layer of these packages kept by an earlier run is not used.
    await build('1.0.0', {}, ['--rebuild']);
    expect(debianStep(0).command).toContain('apt-get update');
    // apt parsed the fresh lists into its cache; the copy taken before its install is kept.
    const kept = statSync(join(dir, 'bincache.tar')).mtimeMs;
    const debs = statSync(join(dir, 'packages.tar')).mtimeMs;
    expect(statSync(join(dir, 'lists.tar')).size).toBeGreaterThan(0);
    // The next version's build starts from the Debian packages the first one installed: no apt runs.
    await build('1.0.1');
    const layer = /^reused (piper-debian-packages:[0-9a-f]{12})$/.exec(debianStep(1).command)?.[1];
    expect(layer, debianStep(1).command).toBeDefined();
    // Without that layer, the next build installs again, from the kept lists and packages.
    execFileSync('docker', ['rmi', layer!]);
    await build('1.0.2');
    // The next project's build neither fetches the lists nor parses them again, and still installs.
    expect(debianStep(2).command).not.toContain('apt-get update');
    expect(debianStep(2).output_tail).toContain('piper-dpkg python3-attr');
    // Not parsed again: the kept cache was not rewritten.
    expect(statSync(join(dir, 'bincache.tar')).mtimeMs).toBe(kept);
    // Nothing was downloaded (python3-attr came from the kept packages): they were not written again.
    expect(statSync(join(dir, 'packages.tar')).mtimeMs).toBe(debs);
    const image = envRows(repo)[2]!.image;
    const left = execFileSync(
      'docker',
      [
        'run',
        '--rm',
        '--network',
        'none',
        image,
        'sh',
        '-c',
        'ls -A /var/lib/apt/lists /var/cache/apt /var/cache/apt/archives 2>/dev/null; true',
      ],
      { encoding: 'utf8' },
    );
    expect(left.split(/\s+/).filter((f) => /\.bin$|\.deb$|piper-copy|Packages|InRelease/.test(f))).toEqual(
      [],
    );
    // A refresh forced by the age setting fetches them again.
    execFileSync('docker', ['rmi', layer!]);
    await build('1.0.3', { PIPER_APT_LISTS_MAX_AGE_H: '0' });
    expect(debianStep(3).command).toContain('apt-get update');
  });
});

describe('pip: a wheelhouse and a local index with credentials', () => {
  it('installs from both, and the credentials reach no image layer, config or ledger row', async () => {
    const wheels = join(scratch, 'index-wheels');
    mkdirSync(wheels, { recursive: true });
    const shout = buildWheel(wheels, 'shout', '2.1', {
      'shout.py': 'def shout(s):\n    return s.upper() + "!"\n',
    });
    const secret = 's3cret-index-token';
    const index = await serveSimpleIndex([shout], { user: 'ci', password: secret });
    const repo = newRepo('wheel-app', {
      'pyproject.toml':
        '[project]\nname = "wheel-app"\nversion = "1.0"\ndependencies = ["greet==1.0", "shout>=2"]\n\n[tool.setuptools]\npy-modules = ["app"]\n',
      'app.py':
        'from greet import greet\nfrom shout import shout\n\ndef hello(n):\n    return shout(greet(n))\n',
      'tests/test_app.py':
        'from app import hello\n\ndef test_hello():\n    assert hello("ada") == "HELLO, ADA!"\n',
    });
    // After the copy: copyAsGitRepo leaves .piper out, as it does a ledger.
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'find_links = ["wheelhouse"]\n');
    mkdirSync(join(repo, 'wheelhouse'));
    buildWheel(join(repo, 'wheelhouse'), 'greet', '1.0', {
      'greet.py': 'def greet(n):\n    return f"hello, {n}"\n',
    });
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: { ...NO_PIP, PIP_INDEX_URL: index.url },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(index.requests.some((q) => q.path.startsWith('/files/shout') && q.authorized)).toBe(true);
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string; source: string }>;
      expect(resolved).toContainEqual({ name: 'greet', version: '1.0', source: 'pip' });
      expect(resolved).toContainEqual({ name: 'shout', version: '2.1', source: 'pip' });
      // Nowhere: not the ledger file, not the image's configuration, not its history, not the output.
      expect(readFileSync(defaultLedgerPath(repo)).includes(secret)).toBe(false);
      expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
      expect(execFileSync('docker', ['image', 'inspect', row!.image], { encoding: 'utf8' })).not.toContain(
        secret,
      );
      const saved = execFileSync('sh', ['-c', `docker save ${row!.image} | grep -a -c ${secret} || true`], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      expect(saved.trim()).toBe('0');
    } finally {
      await index.close();
    }
  });
});

describe("the user's own pip configuration", () => {
  it('uses the index its pip.conf names, as a plain pip install would', async () => {
    const wheels = join(scratch, 'conf-wheels');
    mkdirSync(wheels, { recursive: true });
    const shout = buildWheel(wheels, 'shout', '2.1', { 'shout.py': 'def shout(s):\n    return s.upper()\n' });
    const index = await serveSimpleIndex([shout]);
    const conf = join(scratch, 'pip.conf');
    writeFileSync(conf, `[global]\nindex-url = ${index.url}\n`);
    const repo = newRepo('pip-conf', {
      'requirements.txt': 'shout>=2\n',
      'tests/test_shout.py': 'from shout import shout\n\ndef test_shout():\n    assert shout("a") == "A"\n',
    });
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: { ...NO_PIP, PIP_INDEX_URL: '', PIP_CONFIG_FILE: conf },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(index.requests.some((q) => q.path.startsWith('/files/shout'))).toBe(true);
      const [row] = envRows(repo);
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string; source: string }>;
      expect(resolved).toContainEqual({ name: 'shout', version: '2.1', source: 'pip' });
    } finally {
      await index.close();
    }
  });
});

describe('a requirement no source meets', () => {
  const files = {
    'requirements.txt': 'attrs>=99\nno-such-dist-piper==1.0\n',
    'tests/test_x.py': 'import attr\n\ndef test_x():\n    assert attr.__version__\n',
  };
  // Nothing listens on port 9: pip knows in seconds, and Debian follows.
  const env = { ...NO_PIP, PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' };

  it('best effort: relaxed to the version Debian has, left out when no source has it, recorded; the tests run', async () => {
    const repo = newRepo('best-effort', files);
    const r = await runCli(['run-test', 'tests/', '--repo', repo], { env });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toMatch(/environment: relaxed: attrs >=99 → [\d.]+ \(debian\)/);
    expect(r.stderr).toContain(
      'environment: missing: no-such-dist-piper ==1.0 (no source has it; from requirements.txt:2)',
    );
    const [row] = envRows(repo);
    expect(row!.status).toBe('built');
    const shortfalls = JSON.parse(row!.shortfalls!) as Array<{ kind: string; name: string; why: string }>;
    expect(shortfalls.map((s) => [s.kind, s.name])).toEqual([
      ['relaxed', 'attrs'],
      ['missing', 'no-such-dist-piper'],
    ]);
    expect(shortfalls[1]!.why).toMatch(
      /pip: your pip sources not reachable .*; debian: no Debian package is known/,
    );
    // A hit through a ledger that never saw the build still says them: the image carries them.
    const other = join(scratch, 'other-ledger.db');
    const hit = await runCli(['run-test', 'tests/', '--repo', repo, '--ledger', other], { env });
    expect(hit.code, hit.stderr.slice(-3000)).toBe(0);
    expect(hit.stderr).toMatch(/environment: relaxed: attrs >=99 → [\d.]+ \(debian\)/);
    expect(hit.stderr).toContain('environment: missing: no-such-dist-piper ==1.0');
    const hitRow = Ledger.open(other);
    const rows = hitRow.database.prepare('SELECT status, shortfalls FROM environments').all() as Array<{
      status: string;
      shortfalls: string;
    }>;
    hitRow.close();
    expect(rows.map((r) => [r.status, (JSON.parse(r.shortfalls) as unknown[]).length])).toEqual([['hit', 2]]);
  });

  it('strict: fails before any test with the requirement, its specifier and every source; no image is tagged', async () => {
    const repo = newRepo('strict', files);
    const t0 = Date.now();
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--env', 'strict'], { env });
    console.log(`strict build failed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot satisfy 2 requirement(s) in any source (strict)');
    expect(r.stderr).toMatch(
      /attrs >=99 \(from requirements\.txt:1\): pip: .*; debian: python3-attr gives [\d.]+, which does not satisfy it/,
    );
    expect(r.stderr).toMatch(
      /no-such-dist-piper ==1\.0 \(from requirements\.txt:2\): pip: .*; debian: no Debian package is known/,
    );
    expect(r.stderr).toContain('--env base');
    expect(await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`])).toEqual([]);
    const [row] = envRows(repo);
    expect(row!.status).toBe('failed');
    expect(row!.error).toContain('no-such-dist-piper');
  });
});

describe('a user-provided image', () => {
  it('is used as it is and recorded as user-provided', async () => {
    const repo = newRepo('user-image', { 'requirements.txt': 'attrs>=99\n' });
    const image = loadRecipe().ref;
    const r = await runCli(['execute', '--repo', repo, '--code', 'print(1)', '--json'], {
      env: { ...NO_PIP, PIPER_SANDBOX_IMAGE: image },
    });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { image: string }).image).toBe(image);
    expect(envRows(repo).map((row) => [row.status, row.image])).toEqual([['user', image]]);
  });
});
