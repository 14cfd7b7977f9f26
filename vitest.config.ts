import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// kimops's caches (fetched repos, plan caches) of a test run go to a folder of the run's own, not the user's ~/.cache.
const env = { XDG_CACHE_HOME: join(tmpdir(), `kimops-test-cache-${process.pid}`) };

// Two projects (DESIGN.md §5): `unit` needs no external process and runs everywhere;
// `integration` needs the test control plane and the git server, started by its global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          env,
          include: ['{generator,applier,backfiller,model,adapters,cli,policies,scripts}/**/*.test.ts', 'test/helpers/**/*.test.ts'],
          // Some unit tests push to a loopback git server; 2 busy cores can take them past vitest's 5 s default.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          env,
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
