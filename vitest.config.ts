import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The default ledger of every repository a test makes lives in the state directory
// (runtime/ledger/location.ts): one of this run's own, so no test writes into the real home.
const XDG_STATE_HOME = mkdtempSync(join(tmpdir(), 'piper-test-state-'));

// Two projects: unit tests are pure and fast; integration tests drive the real Docker engine and
// run one file at a time (they measure limits, so they must not starve each other of CPU).
export default defineConfig({
  test: {
    projects: [
      {
        // Generous: on a loaded two-core machine a frame or a child process can take seconds. No test
        // asserts a time; this only bounds a hang.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          testTimeout: 30_000,
          env: { XDG_STATE_HOME },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup: ['test/integration/global-setup.ts'],
          // The CLI's one-shot commands keep no warm container for the next (warm-container.test.ts
          // turns it on): a test run would leave one per image for ten minutes.
          env: { PIPER_WARM_IDLE_S: '0', XDG_STATE_HOME },
        },
      },
      {
        // End-to-end evaluation runs over whole task sets (ab over piperbench, ab validate over the
        // real set): many minutes of sandbox runs and environment builds, so `make test-eval` runs
        // them, not `make test`; CI runs both.
        test: {
          name: 'eval',
          include: ['test/eval/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 3_600_000,
          hookTimeout: 600_000,
          globalSetup: ['test/integration/global-setup.ts'],
          env: { PIPER_WARM_IDLE_S: '0', XDG_STATE_HOME },
        },
      },
      {
        // Two more dockerds in a private network namespace as a Swarm (test/helpers/swarm.ts): minutes
        // of image loading and jobs, so `make test-cluster` runs it, not `make test`.
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 1_800_000,
          hookTimeout: 1_800_000,
          globalSetup: ['test/integration/global-setup.ts'],
          env: { PIPER_WARM_IDLE_S: '0', XDG_STATE_HOME },
        },
      },
    ],
  },
});
