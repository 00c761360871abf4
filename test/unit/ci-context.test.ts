// The CI image's build context on a small fake package: what goes in (production packages only,
// no source maps, no caches), how the Dockerfile's base is set, what the hash covers, and the tar.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  contextHash,
  offlineBaseContext,
  offlineContext,
  onlineContext,
  packContext,
  productionPackages,
  type CiContext,
} from '../../runtime/images/ci-context.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { packageRoot } from '../../runtime/package-root.js';

let root: string;

function put(rel: string, content = `// ${rel}\n`, mode = 0o644): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content, { mode });
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'piper-ci-context-'));
  put('package.json', JSON.stringify({ name: 'piper-agent', version: '9.9.9' }));
  put(
    'package-lock.json',
    JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': { name: 'piper-agent' },
        'node_modules/prod': {},
        'node_modules/prod/node_modules/nested': {},
        'node_modules/devonly': { dev: true },
        'node_modules/other-platform': { optional: true },
      },
    }),
  );
  put('node_modules/prod/index.js');
  put('node_modules/prod/node_modules/nested/index.js');
  mkdirSync(join(root, 'node_modules/prod/node_modules/.bin'), { recursive: true });
  symlinkSync('../nested/index.js', join(root, 'node_modules/prod/node_modules/.bin/nested'));
  put('node_modules/devonly/index.js');
  mkdirSync(join(root, 'node_modules/.bin'));
  symlinkSync('../devonly/index.js', join(root, 'node_modules/.bin/devonly'));
  put('dist/bundle/main.js');
  put('dist/bundle/main.js.map', '{}');
  put('dist/bundle/fix-abc123.js');
  put('dist/cli/main.js');
  put('bin/piper-agent.js', '#!/usr/bin/env node\n', 0o755);
  put('sandbox-images/python/recipe.json', '{}');
  put('runtime/env/data/cpython3_fallback', 'attrs python3-attr\n');
  put('test/fixtures/sample-repo/ISSUE.md', 'top_words is one short\n');
  put('test/fixtures/sample-repo/textstats/__pycache__/words.cpython-311.pyc', 'bytecode');
  put('test/fixtures/models/sample-fix.jsonl', '{}\n');
  put('test/fixtures/models/other.jsonl', '{}\n');
  put('tsconfig.json', '{}');
  put('tsconfig.build.json', '{}');
  put('rolldown.config.mjs', 'export default {};\n');
  put('cli/main.ts');
  mkdirSync(join(root, 'docker'));
  for (const file of ['Dockerfile', 'Dockerfile.offline', 'Dockerfile.offline-base', 'finish-ci-image.sh']) {
    copyFileSync(join(packageRoot(), 'docker', file), join(root, 'docker', file));
  }
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const names = (context: CiContext) => context.entries.map((e) => e.name);
const text = (context: CiContext, name: string) => {
  const entry = context.entries.find((e) => e.name === name);
  return entry?.kind === 'text' ? entry.content : undefined;
};

describe('offlineBaseContext and offlineContext', () => {
  test('the base holds the host node and the production packages; the app holds the compiled app; nothing else', () => {
    const base = offlineBaseContext(root, 'piper-sandbox-python:abc123');
    expect(names(base)).toEqual(
      expect.arrayContaining([
        'Dockerfile',
        'host/usr/local/bin/node',
        'deps/node_modules/prod/index.js',
        'deps/node_modules/prod/node_modules/nested/index.js',
      ]),
    );
    expect(names(base).filter((n) => !/^(Dockerfile|host\/|deps\/)/.test(n))).toEqual([]);
    const baseDockerfile = text(base, 'Dockerfile') ?? '';
    expect(baseDockerfile).toMatch(/^ARG PIPER_SANDBOX_IMAGE=piper-sandbox-python:abc123$/m);
    expect(baseDockerfile).toMatch(/^FROM \$\{PIPER_SANDBOX_IMAGE\} AS rootfs$/m);

    const app = offlineContext(root, 'piper-agent-ci-base:def456');
    expect(names(app)).toEqual([
      'Dockerfile',
      'app/bin/piper-agent.js',
      'app/dist/bundle/fix-abc123.js',
      'app/dist/bundle/main.js',
      'app/docker/finish-ci-image.sh',
      'app/package-lock.json',
      'app/package.json',
      'app/runtime/env/data/cpython3_fallback',
      'app/sandbox-images/python/recipe.json',
      'app/test/fixtures/models/sample-fix.jsonl',
      'app/test/fixtures/sample-repo/ISSUE.md',
    ]);
    const appDockerfile = text(app, 'Dockerfile') ?? '';
    expect(appDockerfile).toMatch(/^ARG PIPER_CI_BASE=piper-agent-ci-base:def456$/m);
    expect(appDockerfile).toContain('ENTRYPOINT ["node", "/app/bin/piper-agent.js"]');

    const all = [...names(base), ...names(app)];
    expect(all.filter((n) => /devonly|\.bin|\.map$|__pycache__|other\.jsonl|other-platform/.test(n))).toEqual(
      [],
    );
    expect(names(base)).toEqual([...names(base)].sort());
  });

  test("copies this machine's git when it has one, and says the image lacks git when it has none", () => {
    const withGit = offlineBaseContext(root, 'base:1');
    expect(names(withGit)).toContain('host/usr/bin/git');
    expect(withGit.lacks).toEqual([]);

    const path = process.env.PATH;
    process.env.PATH = join(root, 'no-such-dir');
    try {
      const withoutGit = offlineBaseContext(root, 'base:1');
      expect(names(withoutGit).filter((n) => n.includes('git'))).toEqual([]);
      expect(withoutGit.lacks).toEqual([expect.stringMatching(/^git /)]);
    } finally {
      process.env.PATH = path;
    }
  });

  test('refuses an unbuilt app and an incomplete node_modules, with what to run', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(() => offlineContext(root, 'base:1')).toThrow(/is not built/);

    rmSync(join(root, 'node_modules/prod'), { recursive: true });
    let caught: unknown;
    try {
      productionPackages(root);
    } catch (error) {
      caught = error;
    }
    expect(isRuntimeError(caught, 'image_build_failed')).toBe(true);
    expect((caught as Error).message).toBe('node_modules/prod is in package-lock.json but not installed');
  });
});

describe('onlineContext', () => {
  test('is the repository-root layout docker/Dockerfile builds from: sources, no dist, no node_modules', () => {
    const all = names(onlineContext(root));
    expect(all).toEqual(
      expect.arrayContaining([
        'Dockerfile',
        'package-lock.json',
        'tsconfig.build.json',
        'rolldown.config.mjs',
        'cli/main.ts',
        'bin/piper-agent.js',
      ]),
    );
    expect(
      all.filter((n) => n.startsWith('dist/') || n.includes('node_modules') || n.startsWith('host/')),
    ).toEqual([]);
  });
});

describe('contextHash', () => {
  test('is stable for the same files and changes with any file, the base or the version', async () => {
    const first = await contextHash(offlineContext(root, 'base:1'), ['sha256:base', '9.9.9']);
    expect(await contextHash(offlineContext(root, 'base:1'), ['sha256:base', '9.9.9'])).toBe(first);
    expect(await contextHash(offlineContext(root, 'base:1'), ['sha256:other', '9.9.9'])).not.toBe(first);
    expect(await contextHash(offlineContext(root, 'base:1'), ['sha256:base', '9.9.10'])).not.toBe(first);
    expect(await contextHash(offlineContext(root, 'base:2'), ['sha256:base', '9.9.9'])).not.toBe(first);
    put('dist/bundle/main.js', '// changed\n');
    expect(await contextHash(offlineContext(root, 'base:1'), ['sha256:base', '9.9.9'])).not.toBe(first);

    const base = await contextHash(offlineBaseContext(root, 'sandbox:1'), ['sha256:sandbox']);
    put('node_modules/prod/index.js', '// a new version\n');
    expect(await contextHash(offlineBaseContext(root, 'sandbox:1'), ['sha256:sandbox'])).not.toBe(base);
  });
});

describe('packContext', () => {
  test('writes every entry in order, owned by root, with modes kept and a fixed time', async () => {
    const context = onlineContext(root);
    const seen: Array<{ name: string; mode: number; uid: number; mtime: number; body: string }> = [];
    const extract = tar.extract();
    extract.on('entry', (header, stream, next) => {
      let body = '';
      stream.on('data', (c: unknown) => {
        body += (c as Buffer).toString();
      });
      stream.on('end', () => {
        seen.push({
          name: header.name,
          mode: header.mode ?? 0,
          uid: header.uid ?? -1,
          mtime: header.mtime?.getTime() ?? 0,
          body,
        });
        next();
      });
    });
    await new Promise<void>((resolve, reject) => {
      extract.on('finish', resolve);
      extract.on('error', reject);
      packContext(context).pipe(extract);
    });
    expect(seen.map((e) => e.name)).toEqual(names(context));
    expect(new Set(seen.map((e) => e.uid))).toEqual(new Set([0]));
    expect(new Set(seen.map((e) => e.mtime)).size).toBe(1);
    expect(seen.find((e) => e.name === 'bin/piper-agent.js')?.mode).toBe(0o755);
    expect(seen.find((e) => e.name === 'package.json')?.mode).toBe(0o644);
    expect(seen.find((e) => e.name === 'Dockerfile')?.body).toContain('FROM node:20-bookworm-slim AS build');
  });
});
