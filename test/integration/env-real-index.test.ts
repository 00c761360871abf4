// The real index tier: a small project built from the package index this machine is configured
// with (its pip settings, else pip's own default), sources = index, as a user's CI would install it.
// The exact pinned versions are the index's, in the venv, and the image is labelled an index build,
// never a Debian fallback. Where the index does not answer (test/helpers/real-index.ts) the tests
// are skipped, and the reason is printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL } from '../../runtime/env/floor/names.js';
import { runCli } from '../helpers/cli.js';
import { envRows, envScratch } from '../helpers/env-repos.js';
import { realIndex } from '../helpers/real-index.js';

const index = realIndex();
if (!index.reachable) console.warn(`env-real-index: skipped: ${index.reason}`);

const engine = new DockerEngine();
const repos = envScratch('piper-env-real-index-');
afterAll(() => repos.cleanup(engine));

const FALLBACK = /^environment: fallback build from Debian's packages/m;
const PINS = { iniconfig: '2.0.0', packaging: '24.1' };

describe('the real index', () => {
  it.skipIf(!index.reachable)(
    'builds a pinned project from it: the exact versions, in the venv, labelled index',
    async () => {
      const repo = repos.newRepo('real-index', {
        'requirements.txt': Object.entries(PINS)
          .map(([name, version]) => `${name}==${version}\n`)
          .join(''),
        'tests/test_pins.py':
          'import iniconfig, packaging.version\n\ndef test_pins():\n    assert packaging.version.Version("1.0")\n',
      });
      // The machine's own pip and uv settings, but no wheel directory of its own and a cold wheel
      // cache: every file comes from the index.
      const env = {
        ...process.env,
        PIP_FIND_LINKS: '',
        PIPER_WHEEL_CACHE: mkdtempSync(join(tmpdir(), 'piper-real-index-cache-')),
        CI: 'true',
      };
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json', '--sources', 'index'], { env });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.stderr).not.toMatch(FALLBACK);
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      expect(row!.sources).toContain('sources: index');
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string; source: string }>;
      for (const [name, version] of Object.entries(PINS))
        expect(resolved).toContainEqual({ name, version, source: 'pip' });
      const image = await engine.inspectImage(row!.image);
      expect(image!.labels[ENV_LABEL.sources]).toBe('index');
      const code =
        'import importlib.metadata as m, iniconfig, packaging\n' +
        'print(m.version("iniconfig"), m.version("packaging"), iniconfig.__file__, packaging.__file__)';
      const shown = await runCli(['execute', '--repo', repo, '--json', '--code', code], { env });
      expect(shown.code, shown.stderr.slice(-2000)).toBe(0);
      const [ini, pkg, iniFile, pkgFile] = (JSON.parse(shown.stdout) as { stdout: string }).stdout
        .trim()
        .split(' ');
      expect([ini, pkg]).toEqual([PINS.iniconfig, PINS.packaging]);
      expect(iniFile).toMatch(/^\/opt\/piper\/venv\//);
      expect(pkgFile).toMatch(/^\/opt\/piper\/venv\//);
    },
    600_000,
  );
});
