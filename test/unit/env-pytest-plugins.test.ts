// The pytest plugin rule's parts: the entry_points.txt scan read back as data (the sed step's
// output shape, sys.path order, the project's own dist-info), the image label's round trip, and the
// run variables — autoload off, `-p NAME` only for the distributions the plan names, the project's
// own PYTEST_ADDOPTS kept, and --strict-config dropped only when an ini key's plugin is missing.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import {
  parseEntryPointsScan,
  pluginsFromLabel,
  pluginsFromSentence,
  pluginsLabel,
  pluginsSentence,
  projectEntryPoints,
} from '../../runtime/env/build/project/pytest-entry-points.js';
import { pytestRunEnv } from '../../runtime/env/run/pytest-run-env.js';
import type { Shortfall } from '../../runtime/env/build/shortfall.js';
import { planRepo } from '../helpers/env-plan-repo.js';

const SCAN = [
  'piper-ep /opt/piper/venv/lib/python3.13/site-packages/pytest_asyncio-1.1.0.dist-info/entry_points.txt',
  'asyncio = pytest_asyncio.plugin',
  '',
  'piper-ep /usr/lib/python3/dist-packages/anyio-4.8.0.dist-info/entry_points.txt',
  'anyio = anyio.pytest_plugin',
  'piper-ep /usr/lib/python3/dist-packages/pytest_asyncio-0.25.1.dist-info/entry_points.txt',
  'asyncio = pytest_asyncio.plugin',
  'piper-ep /usr/lib/python3/dist-packages/Faker-18.0.egg-info/entry_points.txt',
  'faker = faker.contrib.pytest.plugin',
  '# a comment',
  'bad name = x; rm -rf /',
  'piper-ep /usr/lib/python3/dist-packages/plain_thing-1.0.dist-info/entry_points.txt',
].join('\n');

describe('the entry points scan', () => {
  it('reads each [pytest11] line with its distribution; the first copy of a distribution wins', () => {
    expect(parseEntryPointsScan(SCAN)).toEqual([
      { dist: 'pytest-asyncio', name: 'asyncio', module: 'pytest_asyncio.plugin' },
      { dist: 'anyio', name: 'anyio', module: 'anyio.pytest_plugin' },
      { dist: 'faker', name: 'faker', module: 'faker.contrib.pytest.plugin' },
    ]);
  });

  it("adds the project's own from its dist-info, and survives the label and the recorded sentence", () => {
    const plugins = parseEntryPointsScan(SCAN);
    const files = [
      {
        path: '/opt/piper/venv/lib/python3.13/site-packages/pytest_piper-0.1.dist-info/entry_points.txt',
        data: Buffer.from('[console_scripts]\nx = y:z\n\n[pytest11]\npiper = pytest_piper.plugin\n'),
        mode: 0o644,
      },
    ];
    projectEntryPoints(files, plugins);
    expect(plugins.at(-1)).toEqual({ dist: 'pytest-piper', name: 'piper', module: 'pytest_piper.plugin' });
    expect(pluginsFromLabel(pluginsLabel(plugins))).toEqual(plugins);
    expect(pluginsFromLabel('')).toEqual([]);
    expect(pluginsFromLabel(undefined)).toBeNull();
    expect(pluginsFromSentence(['x', pluginsSentence(plugins)])?.map((p) => p.name)).toEqual([
      'asyncio',
      'anyio',
      'faker',
      'piper',
    ]);
    expect(pluginsSentence([])).toBe('pytest plugins in the image: none');
  });
});

const missing = (name: string): Shortfall => ({
  kind: 'missing',
  name,
  wanted: name,
  got: null,
  source: null,
  from: 'x',
  optional: false,
  why: 'no source has it',
});

describe('the run variables', () => {
  const plugins = parseEntryPointsScan(SCAN);

  it('turn autoload off and load, by entry point name, only what the project names', () => {
    const plan = planEnvironment(
      planRepo({
        'pyproject.toml': '[project]\nname = "p"\nversion = "1"\ndependencies = ["faker"]\n',
        'pytest.ini': '[pytest]\nasyncio_mode = auto\n',
      }),
    );
    const run = pytestRunEnv(plan, plugins, [], '-p no:cacheprovider');
    expect(run.env).toMatchObject({
      PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1',
      PYTEST_ADDOPTS: '-p no:cacheprovider -p asyncio -p faker',
    });
    expect(run.notes).toEqual([
      'pytest: plugin autoload off; loaded as the project names them: asyncio (pytest-asyncio), faker (faker); not loaded, not named by the project: anyio (anyio)',
    ]);
    expect(run.runNotes).toEqual([]);
  });

  it('leave out a plugin whose distribution fails at import, and say so', () => {
    const plan = planEnvironment(
      planRepo({
        'pyproject.toml': '[project]\nname = "p"\nversion = "1"\ndependencies = ["faker"]\n',
        'pytest.ini': '[pytest]\nasyncio_mode = auto\n',
      }),
    );
    const broken = { ...missing('Faker'), kind: 'broken' as const, got: '18.0', source: 'debian' };
    const run = pytestRunEnv(plan, plugins, [broken], '');
    expect(run.env.PYTEST_ADDOPTS).toBe('-p asyncio');
    expect(run.notes).toEqual([
      'pytest: plugin autoload off; loaded as the project names them: asyncio (pytest-asyncio); not loaded, not named by the project: anyio (anyio); not loaded, failing at import (broken): faker (faker)',
    ]);
  });

  it("keep the project's own PYTEST_ADDOPTS, and leave a user image (plugins unknown) as it is", () => {
    const planned = planEnvironment(planRepo({ 'pyproject.toml': '[project]\nname = "p"\nversion = "1"\n' }));
    // As a CI step's env: would give it.
    const plan = { ...planned, testEnv: { PYTEST_ADDOPTS: '--color=yes' } };
    expect(pytestRunEnv(plan, plugins, [], '-p no:cacheprovider').env.PYTEST_ADDOPTS).toBe('--color=yes');
    expect(pytestRunEnv(plan, null, [], '-p no:cacheprovider')).toEqual({
      env: { PYTEST_ADDOPTS: '--color=yes' },
      notes: [],
      runNotes: [],
    });
  });

  it('drop --strict-config only when an ini key of the configuration needs a missing plugin', () => {
    const plan = planEnvironment(
      planRepo({
        'pyproject.toml':
          '[project]\nname = "p"\nversion = "1"\n\n[tool.pytest.ini_options]\naddopts = ["--strict-config", "-k", "not slow and not db", "-ra"]\nasyncio_mode = "auto"\n',
      }),
    );
    expect(plan.pytest).toEqual({
      source: 'pyproject.toml [tool.pytest.ini_options]',
      addopts: ['--strict-config', '-k', 'not slow and not db', '-ra'],
      iniNeeds: [{ key: 'asyncio_mode', dist: 'pytest-asyncio' }],
    });
    expect(pytestRunEnv(plan, [], [missing('attrs')], '').env.PYTEST_ADDOPTS).toBe('');
    const run = pytestRunEnv(plan, [], [missing('pytest_asyncio')], '-p no:cacheprovider');
    // shlex (pytest's split) reads this as two words: -o, and addopts=-k 'not slow and not db' -ra.
    expect(run.env.PYTEST_ADDOPTS).toBe(
      `-p no:cacheprovider -o 'addopts=-k '"'"'not slow and not db'"'"' -ra'`,
    );
    expect(run.runNotes).toEqual([
      'pytest: --strict-config dropped from pyproject.toml [tool.pytest.ini_options] addopts: asyncio_mode needs pytest-asyncio, which no source has (missing); the rest of addopts is kept',
    ]);
    expect(run.notes).toContain(run.runNotes[0]);
  });
});
