// Shared set-up for the real-engine tests: the engine, the current sandbox image, and the check
// that a test file left no container of this process behind.
import { expect } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { EXECUTE_ARGV } from '../../runtime/sandbox/pool.js';
import { Sandbox, type SandboxOptions } from '../../runtime/sandbox/sandbox.js';
import type { Limits, RunSpec } from '../../runtime/sandbox/spec.js';

export const engine = new DockerEngine();
export const IMAGE = loadRecipe().ref;

export function makeSandbox(options: Omit<SandboxOptions, 'image'> = {}): Sandbox {
  return new Sandbox(engine, { image: IMAGE, ...options });
}

export function python(code: string, limits: Partial<Limits> = {}): RunSpec {
  return { image: IMAGE, argv: EXECUTE_ARGV, stdin: code, limits };
}

/** Containers owned by this test process (removal is in the background; give it a moment). */
export async function expectNoContainersLeft(): Promise<void> {
  const mine = `${LABEL.owner}=${formatOwner(currentOwner())}`;
  for (let i = 0; i < 50; i++) {
    if ((await engine.listContainers([mine])).length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await engine.listContainers([mine])).toEqual([]);
}
