// A project whose root package is a native addon (an install script running node-gyp): run-test
// with no target builds it before its tests, in the sandbox, offline, from the checkout's source,
// with piper's npm and the provided Node's headers, as `npm ci` on a runner would. Real engine, real
// CLI, the user's npm registry (the environment's toolchain); no package installed but the project.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { registryUnreachable } from '../helpers/js-env.js';

const skip = await registryUnreachable();
const root = mkdtempSync(join(tmpdir(), 'piper-js-addon-'));
const engine = new DockerEngine();
afterAll(async () => {
  const ls = await runCli(['env', 'ls', '--json', '--repo', root]);
  const mine = (JSON.parse(ls.stdout || '[]') as Array<{ tags: string[]; this_repo: boolean }>)
    .filter((i) => i.this_repo)
    .flatMap((i) => i.tags);
  for (const ref of mine) await engine.removeImage(ref).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

const ADDON = [
  '#include <node_api.h>',
  'static napi_value Answer(napi_env env, napi_callback_info info) {',
  '  napi_value out;',
  '  napi_create_int32(env, 42, &out);',
  '  return out;',
  '}',
  'static napi_value Init(napi_env env, napi_value exports) {',
  '  napi_value fn;',
  '  napi_create_function(env, "answer", NAPI_AUTO_LENGTH, Answer, NULL, &fn);',
  '  napi_set_named_property(env, exports, "answer", fn);',
  '  return exports;',
  '}',
  'NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)',
  '',
].join('\n');

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'answer-addon',
    version: '1.0.0',
    main: 'index.js',
    scripts: { install: 'node-gyp rebuild', test: 'node --test' },
  }),
  'binding.gyp': JSON.stringify({ targets: [{ target_name: 'answer', sources: ['answer.c'] }] }),
  'answer.c': ADDON,
  'index.js': "module.exports = require('./build/Release/answer.node');\n",
  'test/answer.test.js': [
    "const test = require('node:test');",
    "const assert = require('node:assert');",
    "test('the addon built from the checkout answers', () => assert.strictEqual(require('..').answer(), 42));",
    '',
  ].join('\n'),
};

describe.skipIf(skip !== null)(`the root package's own native addon (${skip ?? 'registry answers'})`, () => {
  it('is built from the checkout before its tests, offline, and the tests load it', async () => {
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const r = await runCli(
      ['run-test', '--repo', root, '--ledger', join(root, '.l.db'), '--json', '--timeout', '240'],
      {
        env: { CI: 'true' },
      },
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const out = JSON.parse(r.stdout) as { passed: boolean; output: string; target: string };
    expect(out.target).toBe('npm run install && node --test');
    expect(out.passed, out.output.slice(-2000)).toBe(true);
    expect(out.output).toMatch(/gyp info ok/);
    expect(out.output).toMatch(/the addon built from the checkout answers/);
  }, 900_000);
});
