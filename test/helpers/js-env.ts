// JavaScript projects for the environment tests: files written into a scratch directory, a JsPlan
// made from them by hand (the planner's shape), a run of a command in a sandbox of the environment
// with the project's files as its workspace, and whether the user's npm registry answers at all.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { JsPlanSchema, type JsManager, type JsPlan } from '../../runtime/env/js/plan/js-plan.js';
import { npmRegistry } from '../../runtime/env/js/toolchain/npm-registry.js';
import { machineDispatcher } from '../../runtime/env/js/toolchain/machine-tls.js';
import type { Sandbox } from '../../runtime/sandbox/sandbox.js';

const written: string[] = [];

/** Removes every project writeProject made (a test file's afterAll). */
export function removeProjects(): void {
  for (const root of written.splice(0)) rmSync(root, { recursive: true, force: true });
}

export function writeProject(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-js-env-'));
  written.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function fileInput(root: string, path: string) {
  return {
    path,
    sha256: createHash('sha256')
      .update(readFileSync(join(root, path)))
      .digest('hex'),
  };
}

export function planOf(
  root: string,
  opts: {
    manager: JsManager;
    version: string;
    lockfile: string | null;
    workspaces?: string[];
    major?: number;
  },
): JsPlan {
  const workspaces = opts.workspaces ?? [];
  // Parsed: a field the planner's schema adds gets its value here, one it lacks is dropped.
  return JsPlanSchema.parse({
    language: 'javascript',
    node: { major: opts.major ?? 20, from: 'test' },
    manager: { name: opts.manager, version: opts.version, from: 'test' },
    lockfile: opts.lockfile ? fileInput(root, opts.lockfile) : null,
    manifests: ['package.json', ...workspaces.map((w) => `${w}/package.json`)].map((p) => fileInput(root, p)),
    workspaces,
    configFiles: [],
    typescript: false,
    testCommand: null,
    testCommandFrom: 'none',
    testRunner: 'unknown',
    testEnv: {},
    decisions: [],
  });
}

/** The project's files (no node_modules) as a workspace tar. */
export function workspaceOf(files: Record<string, string>): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  pack.finalize();
  return pack as unknown as Readable;
}

export async function runIn(sandbox: Sandbox, image: string, files: Record<string, string>, script: string) {
  return sandbox.run({
    image,
    argv: ['sh', '-c', script],
    workspace: workspaceOf(files),
    limits: { timeoutS: 120, memoryMb: 1024, tmpfsMb: 256 },
  });
}

/** Why the registry cannot be used here (null: it answers). */
export async function registryUnreachable(): Promise<string | null> {
  try {
    const reg = npmRegistry();
    const { request } = await import('undici');
    const dispatcher = await machineDispatcher(reg.url);
    const res = await request(`${reg.url}is-number`, {
      dispatcher,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    await res.body.text();
    await dispatcher.close();
    return res.statusCode === 200 ? null : `the npm registry answered ${res.statusCode}`;
  } catch (error) {
    return `the npm registry does not answer: ${(error as Error).message}`;
  }
}

/** pnpm's lockfile of is-number 7.0.0 alone (its integrity asked of the registry). */
export function isNumberPnpmLock(env: NodeJS.ProcessEnv = process.env): string {
  const integrity = execFileSync('npm', ['view', 'is-number@7.0.0', 'dist.integrity'], {
    encoding: 'utf8',
    env,
  });
  return [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
    '  .:',
    '    dependencies:',
    '      is-number:',
    '        specifier: 7.0.0',
    '        version: 7.0.0',
    '',
    'packages:',
    '',
    '  is-number@7.0.0:',
    `    resolution: {integrity: ${integrity.trim()}}`,
    "    engines: {node: '>=0.12.0'}",
    '',
    'snapshots:',
    '',
    '  is-number@7.0.0: {}',
    '',
  ].join('\n');
}
