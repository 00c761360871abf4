// The project's own distribution, brought from the index by a dependency that requires it (pytest
// needs iniconfig, virtualenv needs filelock), never stands in for the checkout: against the real
// engine and pip, with a local index on 127.0.0.1 whose `ownproj` release differs from the
// repository's code, the suite imports the checkout.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-own-');
afterAll(() => repos.cleanup(engine));

describe("the project's own distribution from the index", () => {
  it('is uninstalled after the dependencies: the checkout is what the tests import', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-own-wheels-'));
    const wheels = [
      buildWheel(dir, 'ownproj', '9.0', { 'ownproj/__init__.py': 'WHERE = "index"\n' }),
      buildWheel(dir, 'needsown', '1.0', { 'needsown/__init__.py': '' }, ['ownproj']),
    ];
    const index = await serveSimpleIndex(wheels);
    try {
      const repo = repos.newRepo('ownproj', {
        'pyproject.toml':
          '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "ownproj"\nversion = "1.0"\ndependencies = ["needsown"]\n',
        'src/ownproj/__init__.py': 'WHERE = "checkout"\n',
        'tests/test_where.py':
          'import ownproj\n\ndef test_checkout():\n    assert ownproj.WHERE == "checkout", ownproj.__file__\n',
      });
      const env = {
        ...NO_PIP,
        PIP_INDEX_URL: index.url,
        PIP_RETRIES: '0',
        PIPER_WHEEL_CACHE: join(dir, 'cache'),
      };
      const r = await runCli(['run-test', '--repo', repo, '--json', 'tests/'], { env });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      const result = JSON.parse(r.stdout) as { counts: { passed: number } };
      expect(result.counts.passed).toBe(1);
      // The index's copy was asked for and downloaded: the rule, not an absent release, is why.
      expect(index.requests.some((q) => q.path.includes('ownproj'))).toBe(true);
    } finally {
      await index.close();
    }
  });
});
