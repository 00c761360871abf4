// Podman without an init binary (catatonit), as on a host that installed podman without its
// recommends: an `Init: true` container cannot be created. A build box brings its own PID 1 (the
// image's Python, reaping what it inherits), so the project environment builds and is reused; a
// sandbox keeps its init (a hardening setting) and refuses with what to install.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildBox } from '../../runtime/env/build/build-box.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { packageRoot } from '../../runtime/package-root.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { runCli } from '../helpers/cli.js';
import { startPodman, type PodmanService } from '../helpers/podman.js';
import { ensureSandboxRootfs } from '../helpers/sandbox-rootfs.js';
import { NO_PIP, envScratch } from '../helpers/env-repos.js';

let podman: PodmanService;
let repo: string;
const repos = envScratch('piper-podman-noinit-');
/** The CLI on this engine, with the machine's pip settings cleared. */
const env = () => ({ ...NO_PIP, ...podman.env });

beforeAll(async () => {
  await ensureSandboxRootfs();
  podman = await startPodman('rootful', { withoutInit: true });
  const image = await runCli(['image', 'build'], { env: podman.env, cwd: podman.root });
  expect(image.code, image.stderr).toBe(0);
  repo = repos.newRepo('flit-src', {}, join(packageRoot(), 'test', 'fixtures', 'env-projects', 'flit-src'));
}, 300_000);

afterAll(async () => {
  const left = podman
    ? await podman.api.listContainers({ all: true, filters: { label: [LABEL.owner] } })
    : [];
  // Stopping the service removes its images too (its storage is its own).
  if (podman) await repos.cleanup(podman.engine);
  await podman?.stop();
  expect(left).toEqual([]);
}, 120_000);

describe('Podman without an init binary', () => {
  it('refuses an init container, as the host lacks catatonit', async () => {
    const attempt = podman.api.createContainer({ Image: loadRecipe().ref, HostConfig: { Init: true } });
    await expect(attempt).rejects.toThrow(/container-init binary not found/);
  });

  it('builds the project environment in boxes that reap with their own PID 1, and reuses it', async () => {
    const built = await runCli(['env', 'build', '--repo', repo], { env: env(), cwd: repo });
    expect(built.code, `${built.stdout}\n${built.stderr}`).toBe(0);
    expect(built.stdout).toMatch(/^built: piper-env-/m);
    // One label a line at commit: the key label is read back whole, so the image is a hit.
    const again = await runCli(['env', 'build', '--repo', repo], { env: env(), cwd: repo });
    expect(again.stdout).toMatch(/^hit: piper-env-/m);
  }, 600_000);

  it("a build box's PID 1 reaps the orphans a step leaves", async () => {
    const box = await BuildBox.start(podman.engine, {
      image: loadRecipe().ref,
      network: 'none',
      labels: { [LABEL.owner]: `${process.pid}@test` },
      log: () => undefined,
    });
    try {
      const pid1 = await box.run({ name: 'pid 1', script: 'tr "\\0" " " </proc/1/cmdline', timeoutS: 30 });
      expect(pid1.stdout).toMatch(/^python3 -I -c import os, signal/);
      // Orphans: their parent exits at once, so PID 1 inherits them; they end a moment later.
      await box.run({ name: 'orphans', script: 'for i in 1 2 3; do (sleep 0.2 &); done', timeoutS: 30 });
      const zombies = await box.run({
        name: 'zombies',
        script: 'sleep 2; grep -l "^State:.Z" /proc/[0-9]*/status 2>/dev/null | wc -l',
        timeoutS: 30,
      });
      expect(zombies.stdout.trim()).toBe('0');
    } finally {
      await box.remove();
    }
  }, 120_000);

  it('a sandbox keeps its init and says what to install', async () => {
    const r = await runCli(['run-test', '--repo', repo], { env: env(), cwd: repo });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('container-init binary not found');
    expect(r.stderr).toContain('apt-get install catatonit');
  }, 300_000);
});
