// The process's record of the containers it created (runtime/engine/created-containers.ts), against
// the real engine: removing them all waits for a creation in flight and removes its container too,
// removes one created before, and refuses creations from then on. The record belongs to the process,
// so this file does it once, last: afterwards this test process creates no container.
import { describe, expect, it } from 'vitest';
import { createdContainers } from '../../runtime/engine/created-containers.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { LABEL, containerConfig } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { DEFAULT_LIMITS } from '../../runtime/sandbox/spec.js';
import { IMAGE, engine } from '../helpers/sandbox.js';

const owner = `${LABEL.owner}=${formatOwner(currentOwner())}`;

function config(call: string) {
  return containerConfig({
    image: IMAGE,
    argv: ['true'],
    limits: DEFAULT_LIMITS,
    labels: { [LABEL.owner]: formatOwner(currentOwner()), [LABEL.run]: 'test', [LABEL.call]: call },
  });
}

describe('removing every container the process created (real engine)', () => {
  it('takes one created before and one still being created, then refuses new ones', async () => {
    const before = await engine.createContainer(config('before'));
    expect((await engine.listContainers([owner])).map((c) => c.id)).toContain(before);

    // Its request is out when the removal begins: the engine finishes it, and the record removes it.
    const inFlight = engine.createContainer(config('in-flight'));
    const failures: string[] = [];
    await createdContainers.removeAll((id, error) => failures.push(`${id}: ${String(error)}`));

    const refusedInFlight = await inFlight.then(
      () => null,
      (error: unknown) => error,
    );
    expect(isRuntimeError(refusedInFlight, 'interrupted')).toBe(true);
    expect((refusedInFlight as Error).message).toMatch(
      /container [0-9a-f]{12}, created meanwhile, is removed/,
    );
    expect(failures).toEqual([]);
    expect(await engine.listContainers([owner])).toEqual([]);

    const refusedAfter = await engine.createContainer(config('after')).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isRuntimeError(refusedAfter, 'interrupted')).toBe(true);
    expect((refusedAfter as Error).message).toMatch(/no new container is created/);
    expect(await engine.listContainers([owner])).toEqual([]);
  });
});
