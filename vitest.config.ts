import { defineConfig } from 'vitest/config';

// Two projects: unit tests are pure and fast; integration tests drive the real Docker engine and
// run one file at a time (they measure limits, so they must not starve each other of CPU).
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup: ['test/integration/global-setup.ts'],
        },
      },
    ],
  },
});
