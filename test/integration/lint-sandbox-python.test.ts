// The lint gate judges syntax with the sandbox's own Python (3.13 on trixie), not the host's
// python3 (3.11 here), because the code runs there and what one Python parses another may refuse;
// it does so through one long-lived, hardened, network-less compile server
// container that is started on the first check, restarted when it dies and removed on close.
import { afterAll, describe, expect, it } from 'vitest';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { hostPythonVersion } from '../../primitives/lint/compile-channel.js';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { sandboxPython } from '../../runtime/images/recipe.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { engine, expectNoContainersLeft } from '../helpers/sandbox.js';

const PEP695 = [
  'type Pair = tuple[int, int]',
  '',
  '',
  'def first[T](xs: list[T]) -> T:',
  '    return xs[0]',
  '',
].join('\n');

const mine = [`${LABEL.owner}=${formatOwner(currentOwner())}`, `${LABEL.call}=lint-compile`];

async function compileServers(): Promise<string[]> {
  return (await engine.listContainers(mine)).filter((c) => c.state === 'running').map((c) => c.id);
}

afterAll(async () => {
  await expectNoContainersLeft();
});

describe('the lint gate compiles with the sandbox image', () => {
  it('passes PEP 695 syntax that the host python3 rejects, and still rejects a real syntax error with its line', async () => {
    expect(sandboxPython()).toBe('3.13');
    const gate = new LintGate();
    try {
      const report = await gate.check(PEP695, 'pairs.py');
      expect(report).toEqual({ diagnostics: [], compileCheck: { ran: true } });
      const broken = await gate.check('x = 1\ndef f(:\n    pass\n', 'broken.py');
      expect(broken.compileCheck).toEqual({ ran: true });
      expect(broken.diagnostics.find((d) => d.code === 'E999')).toMatchObject({ line: 2 });
      // What only CPython's compiler sees, from the sandbox's CPython.
      const nonlocal = await gate.check('def f():\n    nonlocal zz\n', 'mod.py');
      expect(nonlocal.diagnostics).toEqual([
        { code: 'E999', message: "SyntaxError: no binding for nonlocal 'zz' found", line: 2, column: 5 },
      ]);
    } finally {
      await gate.close();
    }
    // The host's own python3 (3.11 here) is what used to judge, and would have refused it.
    if (hostPythonVersion() !== '3.13') {
      const host = new LintGate({ python: 'python3' });
      const report = await host.check(PEP695, 'pairs.py');
      expect(report.diagnostics.map((d) => d.code)).toContain('E999');
      await host.close();
    }
  });

  it('runs one hardened, network-less server, restarts it when it dies, and removes it on close', async () => {
    const gate = new LintGate();
    await gate.check('a = 1\n');
    const [id, ...others] = await compileServers();
    expect(others).toEqual([]);
    const info = await new DockerEngine().inspect(id!);
    expect(info.running).toBe(true);
    // The same hardening as every sandbox run.
    const config = await inspectRaw(id!);
    expect(config.HostConfig.NetworkMode).toBe('none');
    expect(config.HostConfig.CapDrop).toEqual(['ALL']);
    expect(config.HostConfig.ReadonlyRootfs).toBe(false);
    expect(Object.keys(config.HostConfig.Tmpfs as object)).toEqual(
      expect.arrayContaining(['/tmp', '/var/tmp', '/work']),
    );
    expect(config.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(config.HostConfig.Memory).toBeGreaterThan(0);
    expect(config.Config.User).toBe('1000:1000');
    expect(config.Config.Labels[LABEL.owner]).toBe(formatOwner(currentOwner()));

    // Many checks, one server.
    await Promise.all(Array.from({ length: 10 }, (_, i) => gate.check(`v${i} = ${i}\n`)));
    expect(await compileServers()).toEqual([id]);

    // It dies: the check in flight says so, the next one gets a new server.
    await engine.kill(id!);
    const after = await gate.check('b = 2\n');
    expect(after.compileCheck).toEqual({ ran: true });
    const [restarted] = await compileServers();
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(id);

    // close() resolves once the container is gone, not merely asked to go.
    await gate.close();
    expect(await engine.listContainers(mine)).toEqual([]);
  });

  it('close() while the server is still being created waits for it and removes it', async () => {
    const gate = new LintGate();
    const check = gate.check('a = 1\n');
    await gate.close();
    expect((await check).compileCheck).toEqual({ ran: false, reason: 'the compile check was closed' });
    expect(await engine.listContainers(mine)).toEqual([]);
  });

  it('without the sandbox image, reports the check as not run (the host python3 is another version)', async () => {
    if (hostPythonVersion() === sandboxPython()) return; // the host fallback would serve instead
    const gate = new LintGate({ sandbox: { image: 'piper-sandbox-python:no-such-tag' } });
    const report = await gate.check(PEP695, 'pairs.py');
    expect(report.compileCheck).toEqual({
      ran: false,
      reason: expect.stringMatching(
        /piper-sandbox-python:no-such-tag.*the host's python3 is 3\.\d+, not the sandbox's 3\.13: compile check skipped/,
      ),
    });
    expect(report.diagnostics).toEqual([]); // ruff (target 3.13) accepts it
    await gate.close();
  });
});

async function inspectRaw(id: string): Promise<{
  HostConfig: Record<string, unknown> & { CapDrop: string[] };
  Config: { User: string; Labels: Record<string, string> };
}> {
  const Docker = (await import('dockerode')).default;
  return (await new Docker().getContainer(id).inspect()) as never;
}
