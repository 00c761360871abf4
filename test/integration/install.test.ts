// Installing piper-agent as users do: `npm link` / `npm install -g .` put a link to bin/piper-agent.js
// on the PATH (through a link to the package directory), and the command must find its package
// through them; `npm pack` must carry what the installed command needs; the README says how, and
// points nowhere outside the project.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ROOT = packageRoot();
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('install', () => {
  it('runs through the links npm link makes, from any directory', () => {
    // npm link: <prefix>/lib/node_modules/piper-agent → the package, and
    // <prefix>/bin/piper-agent → ../lib/node_modules/piper-agent/bin/piper-agent.js.
    const prefix = mkdtempSync(join(tmpdir(), 'piper-prefix-'));
    mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
    mkdirSync(join(prefix, 'bin'));
    symlinkSync(ROOT, join(prefix, 'lib', 'node_modules', 'piper-agent'));
    symlinkSync('../lib/node_modules/piper-agent/bin/piper-agent.js', join(prefix, 'bin', 'piper-agent'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'piper-cwd-'));
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}` };

    const version = spawnSync('piper-agent', ['--version'], { cwd: elsewhere, env, encoding: 'utf8' });
    expect(version.stderr).toBe('');
    expect(version.stdout).toBe(`${VERSION}\n`);
    // A command that loads its module and the package's data (the tool registry).
    const tools = spawnSync('piper-agent', ['tools', '--json'], { cwd: elsewhere, env, encoding: 'utf8' });
    expect(tools.status, tools.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(tools.stdout))).toContain('read_entity');
  });

  it('npm pack carries the built CLI, the sandbox recipe and the demo sample, not the tests', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'bin/piper-agent.js',
      'dist/bundle/main.js',
      'sandbox-images/python/recipe.json',
      'runtime/env/data/cpython3_fallback',
      'test/fixtures/sample-repo/ISSUE.md',
      'test/fixtures/models/sample-fix.jsonl',
    ])
      expect(files, needed).toContain(needed);
    expect(files.filter((f) => f.startsWith('test/integration/') || f.startsWith('dist/bench/'))).toEqual([]);
    // The bundle is the whole app: tsc's per-module output is not shipped.
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    expect(files.filter((f) => /^dist\/bundle\/fix-.*\.js$/.test(f))).toHaveLength(1);
  });

  it('the README says how to install, and links nothing outside the project', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/\.\.\/shared/);
    expect(readme.split('\n').slice(0, 30).join('\n')).not.toContain('../');
    expect(readme).toContain('npm link');
    expect(readme).toContain('npm install -g .');
  });
});
