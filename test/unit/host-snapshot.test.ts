// Workspace snapshots of hostile trees: submodules, nested repositories,
// FIFOs, sockets, links out of the repository and files that vanish or change kind between the
// listing and the packing are skipped and named, never opened, never fatal; and a 100,000-file
// tree is planned and packed in seconds (measured, printed, not asserted).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceLimits } from '../../primitives/workspace-size.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { gitInOwnRepo } from '../../runtime/host/safe-git.js';
import { listPythonFiles } from '../../primitives/index/repo-files.js';
import { listRepoFiles, SKIPPED_DIRS } from '../../runtime/workspace/repo-listing.js';
import { planSnapshot, skippedNote, snapshotFiles, snapshotTar } from '../../runtime/workspace/snapshot.js';

const ID = { name: 't', email: 't@localhost' };
let work: string;
let repo: string;
let outside: string;
let server: Server;

/** Every entry of a tar stream: name → type and (for files) content. */
async function untar(stream: Readable): Promise<Map<string, { type: string; body: string; link?: string }>> {
  const out = new Map<string, { type: string; body: string; link?: string }>();
  const extract = tar.extract();
  extract.on('entry', (header, body, next) => {
    const chunks: Buffer[] = [];
    body.on('data', (c: unknown) => void chunks.push(c as Buffer));
    body.on('end', () => {
      out.set(header.name, {
        type: header.type ?? 'file',
        body: Buffer.concat(chunks).toString('utf8'),
        link: header.linkname ?? undefined,
      });
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
    stream.on('error', reject);
    stream.pipe(extract);
  });
  return out;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'piper-host-snapshot-'));
  outside = join(work, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.py'), 'SECRET = "outside the repository"\n');
  repo = join(work, 'repo');
  mkdirSync(join(repo, 'pkg'), { recursive: true });
  mkdirSync(join(repo, 'vendor'));
  writeFileSync(join(repo, 'pkg', 'a.py'), 'A = 1\n');
  // A path past ustar's 100-byte name field (a PAX header carries it).
  mkdirSync(join(repo, 'd'.repeat(120)));
  writeFileSync(join(repo, 'd'.repeat(120), `${'n'.repeat(110)}.py`), 'LONG = 1\n');
  writeFileSync(join(repo, 'vendor', 'lib.py'), 'LIB = 1\n');
  writeFileSync(join(repo, 'gone.py'), 'gone\n');
  writeFileSync(join(repo, 'swapped.py'), 'swapped\n');
  writeFileSync(join(repo, 'pipe'), 'a tracked file, to be replaced by a FIFO\n');
  gitInOwnRepo(repo, ['init', '-q'], ID);
  gitInOwnRepo(repo, ['add', '-A'], ID);
  gitInOwnRepo(repo, ['commit', '-q', '-m', 'base'], ID);
  // A submodule: a gitlink entry in the index, its directory holding a `.git` file.
  const sha = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  gitInOwnRepo(repo, ['update-index', '--add', '--cacheinfo', `160000,${sha},sub`], ID);
  mkdirSync(join(repo, 'sub'));
  writeFileSync(join(repo, 'sub', '.git'), 'gitdir: /nonexistent\n');
  writeFileSync(join(repo, 'sub', 'inner.py'), 'INNER = 1\n');
  // An untracked nested repository.
  mkdirSync(join(repo, 'nested'));
  gitInOwnRepo(join(repo, 'nested'), ['init', '-q'], ID);
  writeFileSync(join(repo, 'nested', 'n.py'), 'N = 1\n');
  // Special files: a tracked file that became a FIFO (opening it would block), and an untracked
  // socket (git lists no special file it does not track; the walk below meets them too).
  unlinkSync(join(repo, 'pipe'));
  execFileSync('mkfifo', [join(repo, 'pipe')]);
  server = createServer();
  await new Promise<void>((resolve) => server.listen(join(repo, 'sock'), resolve));
  // Links: inside (packed), outside, dangling, absolute-inside (packed as a relative link).
  symlinkSync('pkg/a.py', join(repo, 'inside-link.py'));
  symlinkSync(join(outside, 'secret.py'), join(repo, 'outside-link.py'));
  symlinkSync('missing.py', join(repo, 'dangling.py'));
  symlinkSync(join(repo, 'pkg'), join(repo, 'abs-pkg'));
  // The tracked directory vendor/ replaced by a link to a directory outside: git still lists
  // vendor/lib.py from its index.
  rmSync(join(repo, 'vendor'), { recursive: true });
  symlinkSync(outside, join(repo, 'vendor'));
  writeFileSync(join(outside, 'lib.py'), 'LIB = "outside"\n');
});

afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('snapshots of a hostile tree', () => {
  it('packs regular files and links inside the repository, skips the rest with a reason, and never blocks', async () => {
    const plan = planSnapshot(repo);
    const packed = plan.entries.map((e) => e.path);
    expect(packed).toEqual(
      expect.arrayContaining(['pkg/a.py', 'gone.py', 'swapped.py', 'inside-link.py', 'abs-pkg']),
    );
    expect(plan.skipped).toEqual(
      expect.arrayContaining([
        { path: 'sub', reason: 'submodule' },
        { path: 'nested', reason: 'nested repository' },
        { path: 'pipe', reason: 'fifo' },
        { path: 'outside-link.py', reason: 'symlink to outside the repository' },
        { path: 'dangling.py', reason: 'dangling symlink' },
        { path: 'vendor/lib.py', reason: 'outside the repository, through a symlinked directory' },
      ]),
    );
    for (const p of packed) expect(p).not.toMatch(/^(sub|nested|vendor)\//);

    // Between the plan and the packing: one file vanishes, another becomes a FIFO.
    unlinkSync(join(repo, 'gone.py'));
    unlinkSync(join(repo, 'swapped.py'));
    execFileSync('mkfifo', [join(repo, 'swapped.py')]);
    const snapshot = snapshotTar(plan);
    const entries = await untar(snapshot.tar);
    expect(entries.get('pkg/a.py')).toMatchObject({ type: 'file', body: 'A = 1\n' });
    expect(entries.get(`${'d'.repeat(120)}/${'n'.repeat(110)}.py`)).toMatchObject({ body: 'LONG = 1\n' });
    expect(entries.get('inside-link.py')).toMatchObject({ type: 'symlink', link: 'pkg/a.py' });
    expect(entries.get('abs-pkg')).toMatchObject({ type: 'symlink', link: 'pkg' });
    for (const name of ['gone.py', 'swapped.py', 'pipe', 'sock', 'outside-link.py', 'vendor/lib.py'])
      expect(entries.has(name), name).toBe(false);
    expect([...entries.values()].map((e) => e.body).join('')).not.toContain('outside the repository');
    expect(snapshot.skipped).toEqual(
      expect.arrayContaining([
        { path: 'gone.py', reason: 'vanished before packing' },
        { path: 'swapped.py', reason: 'fifo' },
      ]),
    );
    const note = skippedNote(snapshot.skipped);
    expect(note).toMatch(/^\[snapshot: skipped \d+ entries: .*pipe \(fifo\).*\]$/);
    expect(note).toContain('sub (submodule)');
  });

  it('walks a tree whose .git is a gitdir file (pointing anywhere) instead of asking git', () => {
    const dir = join(work, 'worktree');
    mkdirSync(dir);
    writeFileSync(join(dir, '.git'), `gitdir: ${join(outside, 'not-a-git-dir')}\n`);
    writeFileSync(join(dir, 'm.py'), 'M = 1\n');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync(outside, join(dir, 'vendor'));
    const plan = planSnapshot(dir);
    expect(plan.entries.map((e) => e.path)).toEqual(['m.py']);
    expect(plan.skipped).toEqual([
      { path: 'fifo', reason: 'fifo' },
      { path: 'vendor', reason: 'symlink to outside the repository' },
    ]);
  });

  it('sizes the work tmpfs from the snapshot, and refuses one over the cap naming size, cap and setting', () => {
    const base = { tmpfsMb: 256, memoryMb: 1024 };
    expect(workspaceLimits(base, { bytes: 10 << 20, files: 3 }, 2048)).toEqual(base);
    expect(workspaceLimits(base, { bytes: 300 << 20, files: 3 }, 2048)).toEqual({
      tmpfsMb: 600,
      memoryMb: 1324,
    });
    expect(workspaceLimits(base, { bytes: 1500 << 20, files: 3 }, 2048).tmpfsMb).toBe(2048);
    let error: unknown;
    try {
      workspaceLimits(base, { bytes: 3 * 1024 ** 3, files: 12 }, 2048);
    } catch (e) {
      error = e;
    }
    expect(isRuntimeError(error, 'bad_spec')).toBe(true);
    expect((error as Error).message).toBe(
      "the repository snapshot is 3.00 GiB (12 files), over run_test's work-space cap of 2048 MiB; no container was started",
    );
    expect((error as { fix?: string }).fix).toContain('PIPER_RUN_TEST_TMPFS_MAX_MB=6144');
  });
});

describe('one listing for the snapshot and the index', () => {
  /** A project with everything a developer's checkout accumulates beside its source. */
  function populate(root: string): void {
    const put = (path: string, text = 'X = 1\n') => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    put('app/main.py');
    put('app/build/__init__.py'); // a package named build is source, not build output
    put('app/data/fixture.json', '{}\n');
    put('tests/test_main.py');
    put('tests/conftest.py');
    put('pyproject.toml', '[project]\nname = "app"\n');
    put('env2/pyvenv.cfg', 'home = /usr/bin\n'); // a virtual environment under any name
    put('env2/lib/site.py');
    put('build/lib/app/main.py');
    put('dist/app-1.0.tar.gz', 'archive');
    put('app.egg-info/PKG-INFO', 'Name: app\n');
    for (const dir of SKIPPED_DIRS.keys()) if (dir !== '.git') put(`${dir}/inside.py`);
  }
  const KEPT = [
    'app/build/__init__.py',
    'app/data/fixture.json',
    'app/main.py',
    'pyproject.toml',
    'tests/conftest.py',
    'tests/test_main.py',
  ];

  it('walking: the snapshot packs the project and its tests, the index reads its Python files of it', () => {
    const root = join(work, 'listing-walk');
    populate(root);
    expect(listRepoFiles(root)).toEqual({ paths: KEPT, mode: 'walk', skipped: [] });
    expect(snapshotFiles(root)).toEqual(KEPT);
    expect(listPythonFiles(root)).toEqual({ paths: KEPT.filter((p) => p.endsWith('.py')), mode: 'walk' });
  });

  it('in git, untracked environments and caches that no .gitignore names stay out of both as well', () => {
    const root = join(work, 'listing-git');
    populate(root);
    gitInOwnRepo(root, ['init', '-q'], ID);
    writeFileSync(join(root, '.gitignore'), 'generated/\n');
    mkdirSync(join(root, 'generated'));
    writeFileSync(join(root, 'generated', 'gen.py'), 'G = 1\n');
    const kept = ['.gitignore', ...KEPT];
    expect(listRepoFiles(root)).toEqual({ paths: kept, mode: 'git', skipped: [] });
    expect(snapshotFiles(root)).toEqual(kept);
    expect(listPythonFiles(root).paths).toEqual(KEPT.filter((p) => p.endsWith('.py')));
  });

  it("in git, a committed node_modules fixture is the project's; one beside a package.json is not", () => {
    const root = join(work, 'listing-node-fixtures');
    const files = [
      'package.json',
      'test/fixtures/eval/index.js',
      'test/fixtures/eval/node_modules/2-files.js',
      'test/fixtures/app/package.json',
      'test/fixtures/app/node_modules/dep/index.js',
      'node_modules/vendored/index.js',
      'test/fixtures/eval/.venv/node_modules/x.js',
    ];
    for (const path of files) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '{}\n');
    }
    gitInOwnRepo(root, ['init', '-q'], ID);
    gitInOwnRepo(root, ['add', '-f', '.'], ID);
    // Untracked: left out as before.
    writeFileSync(join(root, 'test/fixtures/eval/node_modules/untracked.js'), '1\n');
    const kept = [
      'package.json',
      'test/fixtures/app/package.json',
      'test/fixtures/eval/index.js',
      'test/fixtures/eval/node_modules/2-files.js',
    ];
    expect(listRepoFiles(root)).toEqual({ paths: kept, mode: 'git', skipped: [] });
    expect(snapshotFiles(root)).toEqual(kept);
  });
});

describe('a 100,000-file repository', () => {
  it('is planned and packed in seconds, walking and through git (measured, not asserted)', async () => {
    // On a tmpfs when there is one: creating and removing 100,000 files is the slow part, not piper.
    const big = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'piper-100k-'));
    const N = 100_000;
    for (let d = 0; d < N / 1000; d++) {
      const dir = join(big, `d${d}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 1000; f++) writeFileSync(join(dir, `f${f}.py`), `X = ${f}\n`);
    }
    const measure = async (mode: string, pack: boolean) => {
      const t0 = performance.now();
      const plan = planSnapshot(big);
      const planned = performance.now();
      if (!pack) {
        console.log(
          `snapshot plan of ${plan.entries.length} files (${mode}): ${((planned - t0) / 1000).toFixed(2)} s`,
        );
        return plan.entries.length;
      }
      let bytes = 0;
      const stream = snapshotTar(plan).tar;
      stream.on('data', (c: Buffer) => (bytes += c.length));
      await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
      const packed = performance.now();
      console.log(
        `snapshot of ${plan.entries.length} files (${mode}): plan ${((planned - t0) / 1000).toFixed(2)} s, ` +
          `pack ${((packed - planned) / 1000).toFixed(2)} s, tar ${(bytes / 1048576).toFixed(1)} MiB`,
      );
      return plan.entries.length;
    };
    expect(await measure('walk', true)).toBe(N);
    gitInOwnRepo(big, ['init', '-q'], ID);
    expect(existsSync(join(big, '.git'))).toBe(true);
    expect(await measure('git, untracked', false)).toBe(N);
    rmSync(big, { recursive: true, force: true });
  }, 300_000);
});
