// End to end: piper-agent in its own CI image. The image is built offline (or reused when its
// content hash exists), then `docker run` gives it the engine's socket and a copy of the sample
// repository, exactly as a CI job would, and `fix` runs headless with the scripted model. Checked
// from the host: the exit code and JSON result, the patch in the repo copy, the ledger row, and
// that neither the CI container nor any sandbox container it started is left behind.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import {
  CI_HASH_LABEL,
  CI_LABEL,
  CI_VERSION_LABEL,
  ensureCiImage,
  listCiImages,
  type CiImageResult,
} from '../../runtime/images/ci-image.js';
import { RECIPE_LABEL } from '../../runtime/images/recipe.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { getRun } from '../../runtime/ledger/runs.js';

const engine = new DockerEngine();
const work = mkdtempSync(join(tmpdir(), 'piper-ci-image-'));
const testLabel = `piper.test=ci-image-${randomBytes(4).toString('hex')}`;
const cidfile = join(work, 'ci.cid');
let image: CiImageResult;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The engine's unix socket on this machine: the one path the CI container gets from the host. */
function engineSocket(): string {
  const host = process.env.DOCKER_HOST;
  if (!host) return '/var/run/docker.sock';
  if (host.startsWith('unix://')) return host.slice('unix://'.length);
  throw new Error(`DOCKER_HOST=${host} is not a unix socket: the CI container needs the socket mounted`);
}

function docker(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Only the CLI is killed here; the container itself is removed in afterAll via the cidfile.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => reject(new Error(`cannot run the docker CLI: ${error.message}`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) chownTree(full, uid, gid);
    else chownSync(full, uid, gid);
  }
}

beforeAll(async () => {
  const log: string[] = [];
  try {
    image = await ensureCiImage(engine, { log: (line) => log.push(line) });
  } catch (error) {
    throw new Error(`building the CI image failed:\n${log.slice(-40).join('\n')}`, { cause: error });
  }
  const how = (skipped: boolean | undefined) => (skipped ? 'reused' : 'built');
  console.log(
    `CI image ${image.ref} ${how(image.skipped)}, base ${image.base?.ref} ${how(image.base?.skipped)}: ${image.seconds.toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  if (existsSync(cidfile)) await engine.remove(readFileSync(cidfile, 'utf8').trim());
  rmSync(work, { recursive: true, force: true });
});

describe('the CI image', () => {
  test('is labelled with its content hash and version, is reused while the hash exists, and is not a sandbox image', async () => {
    const again = await ensureCiImage(engine, { log: () => {} });
    expect(again).toMatchObject({ skipped: true, imageId: image.imageId, hash: image.hash, ref: image.ref });
    expect(again.base).toEqual({ ...image.base, skipped: true });
    expect(image.lacks).toEqual([]);

    const listed = (await listCiImages(engine)).find((i) => i.id === image.imageId);
    expect(listed?.tags).toEqual(expect.arrayContaining([image.ref, 'piper-agent-ci:latest']));
    const version = (
      JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
    ).version;
    expect(listed?.labels).toMatchObject({
      [CI_LABEL]: '1',
      [CI_HASH_LABEL]: image.hash,
      [CI_VERSION_LABEL]: version,
    });
    // Built on the sandbox's root filesystem but not on the sandbox image: no inherited recipe label,
    // so `piper-agent image build` can never take this image for the sandbox.
    expect(listed?.labels[RECIPE_LABEL]).toBeUndefined();
    // The base (root filesystem, node, git, node_modules) is an image of its own, not a CI image.
    expect((await listCiImages(engine)).map((i) => i.id)).not.toContain(image.base?.imageId);
  });

  test('runs `fix` headless on a mounted checkout: exit 0, verified, the patch on the host, the run in the ledger', async () => {
    const repo = join(work, 'repo');
    const out = join(work, 'out');
    mkdirSync(out);
    cpSync(join(packageRoot(), 'test', 'fixtures', 'sample-repo'), repo, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'safe.directory=*', '-c', 'user.name=ci', '-c', 'user.email=ci@localhost', ...args],
        { cwd: repo, encoding: 'utf8' },
      );
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'sample repository');
    const head = git('rev-parse', 'HEAD').trim();
    // A CI checkout belongs to the runner's user, not to the container's root: git inside must still
    // read it (safe.directory), or the ledger would have no HEAD.
    if (process.getuid?.() === 0) chownTree(repo, 1000, 1000);

    const t0 = Date.now();
    const run = await docker(
      [
        'run',
        '--rm',
        '--init',
        '--network',
        'none',
        '--cidfile',
        cidfile,
        '--label',
        testLabel,
        '-v',
        `${engineSocket()}:/var/run/docker.sock`,
        '-v',
        `${repo}:/repo`,
        // As the CI workflow keeps it (docs/ci.md): the container's state directory goes with it.
        '-v',
        `${out}:/out`,
        '-e',
        'PIPER_LEDGER=/out/ledger.db',
        '-e',
        'CI=true',
        image.ref,
        'fix',
        '--repo',
        '/repo',
        '--model',
        'script:/app/test/fixtures/models/sample-fix.jsonl',
        '--test',
        'tests/test_words.py',
        '/repo/ISSUE.md',
        '--non-interactive',
        '--output',
        'json',
      ],
      90_000,
    );
    console.log(`fix inside the CI image: ${((Date.now() - t0) / 1000).toFixed(1)} s (docker run to exit)`);

    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(result).toMatchObject({ type: 'result', outcome: 'resolved', verified: true, exit_code: 0 });
    expect(result.diff).toContain('+    return ranked[:n]');

    // The edit was made inside the container, on the mounted checkout: it is on the host now.
    const words = readFileSync(join(repo, 'textstats', 'words.py'), 'utf8');
    expect(words).toContain('return ranked[:n]');
    expect(words).not.toContain('ranked[: n - 1]');
    expect(git('status', '--porcelain', '--untracked-files=no').trim()).toBe('M textstats/words.py');

    // The ledger the container wrote, read from the host with the same module.
    const ledger = Ledger.open(join(out, 'ledger.db'));
    try {
      const row = getRun(ledger, String(result.run_id));
      expect(row).toMatchObject({ kind: 'fix', outcome: 'resolved', repo: '/repo', head });
      expect(row?.ended_at).toEqual(expect.any(String));
    } finally {
      ledger.close();
    }

    // Nothing left: the CI container (--rm) and every sandbox container it started on the engine.
    expect(await engine.listContainers([testLabel])).toEqual([]);
    expect(await engine.listContainers([`piper.run=${String(result.run_id)}`])).toEqual([]);
    const ciHost = readFileSync(cidfile, 'utf8').trim().slice(0, 12); // the container's hostname
    const owned = (await engine.listContainers(['piper.owner'])).filter((c) =>
      c.labels['piper.owner']?.startsWith(`${ciHost}:`),
    );
    expect(owned).toEqual([]);
  }, 120_000);
});
