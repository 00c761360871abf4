// A container inherits its image's labels, and images committed from build boxes (a Debian layer, an
// environment) carry the box's owner labels. A sandbox made on the host FROM an image whose label
// names an owner container that is gone must still be this process's: another process's start-up
// sweep leaves it running, and the call ends with its own exit code.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { removeOrphans } from '../../runtime/sandbox/orphans.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { EXECUTE_ARGV } from '../../runtime/sandbox/pool.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { engine, expectNoContainersLeft, IMAGE } from '../helpers/sandbox.js';

const GONE = randomBytes(32).toString('hex');
const TAG = `piper-test-owner-inherited:${GONE.slice(0, 12)}`;
const MINE = `${LABEL.owner}=${formatOwner(currentOwner())}`;

afterAll(async () => {
  await expectNoContainersLeft();
  execFileSync('docker', ['rmi', '-f', TAG], { stdio: 'ignore' });
});

describe('an owner-container label inherited from the image', () => {
  it("is overridden by the sandbox's own, so another process's sweep leaves a running call alone", async () => {
    execFileSync('docker', ['build', '-q', '-t', TAG, '-'], {
      input: `FROM ${IMAGE}\nLABEL ${LABEL.ownerContainer}=${GONE}\n`,
    });
    const sandbox = new Sandbox(engine, { image: TAG, poolSize: 0 });
    try {
      const call = sandbox.run({
        image: TAG,
        argv: EXECUTE_ARGV,
        stdin: 'import time\ntime.sleep(4)\nprint("done")',
        limits: { timeoutS: 60 },
      });
      let labels: Record<string, string> | undefined;
      for (let i = 0; i < 100 && !labels; i++) {
        labels = (await engine.listContainers([MINE])).find((c) => c.state === 'running')?.labels;
        if (!labels) await new Promise((r) => setTimeout(r, 50));
      }
      expect(labels?.[LABEL.ownerContainer]).toBe('');
      const removed = await removeOrphans(engine, () => undefined);
      expect(removed.filter((r) => r.owner === labels?.[LABEL.owner])).toEqual([]);
      const receipt = await call;
      expect(receipt.exit_code).toBe(0);
      expect(receipt.stdout).toContain('done');
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});
