// A `fix` leaves no container behind, run to its end or interrupted. SIGTERM at three moments of
// the scripted sample run: right after `init` (the pool's first container starting; the loop
// stops at its first step), while the edit's lint check starts the compile server (its
// creation in flight), and once it has answered (the server up and idle). After the exit no
// container carries the dead process's owner label. Real CLI, real engine.
import { describe, expect, it } from 'vitest';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { startCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { engine } from '../helpers/sandbox.js';

/** Runs the sample fix in stream-json and sends SIGTERM once a stdout line matches `moment`. */
async function terminatedAt(moment: RegExp) {
  const repo = sampleRepo();
  const { child, done } = startCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--output', 'stream-json'));
  let seen = '';
  const reached = await new Promise<boolean>((resolve) => {
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      if (moment.test(seen)) resolve(true);
    });
    child.on('close', () => resolve(false));
  });
  child.kill('SIGTERM');
  const result = await done;
  return { reached, result, pid: child.pid!, seen };
}

/** Containers (any state) whose owner label names this process id on this host. */
async function ownedBy(pid: number) {
  const all = await engine.listContainers([LABEL.owner]);
  return all
    .filter((c) => (c.labels[LABEL.owner] ?? '').split(':')[1] === String(pid))
    .map((c) => ({ state: c.state, call: c.labels[LABEL.call] ?? '', run: c.labels[LABEL.run] ?? '' }));
}

describe('a fix removes every container it made (real CLI, real engine)', () => {
  it('a run to its end leaves none', async () => {
    const { child, done } = startCli(
      sampleFixArgs(sampleRepo(), 'sample-fix.jsonl', '--output', 'stream-json'),
    );
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"kind":"lint"'); // the compile server was started
    expect(await ownedBy(child.pid!)).toEqual([]);
  });

  it.each([
    ['right after init', /"type":"init"/],
    ['while the edit starts the lint service', /"phase":"started"[^\n]*"tool":"edit_entity"/],
    ['once the lint service has answered', /"type":"observation"[^\n]*"kind":"lint"/],
  ])('SIGTERM %s: exit 143 and no container left', async (_when, moment) => {
    const { reached, result, pid, seen } = await terminatedAt(moment);
    expect(reached, seen).toBe(true);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/SIGTERM: run r-\S+ stopped; its running container was removed/);
    expect(await ownedBy(pid)).toEqual([]);
  });
});
