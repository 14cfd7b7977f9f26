import { defineConfig } from 'vitest/config';

// Two projects (DESIGN.md §5): `unit` needs no external process and runs everywhere;
// `integration` needs the test control plane and the git server, started by its global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{generator,applier,backfiller,model,adapters,cli,policies,scripts}/**/*.test.ts', 'test/helpers/**/*.test.ts'],
          // Some unit tests push to a loopback git server; 2 busy cores can take them past vitest's 5 s default.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          // One plane, one writer at a time: tests share it and the machine has 2 cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 1,
        },
      },
    ],
  },
});
