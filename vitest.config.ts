import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// kimops's caches (fetched repos, plan caches) of a test run go to a folder of the run's own, not the user's ~/.cache.
// No cluster from the environment either (a developer's KUBECONFIG, a CI runner's Pod): a command that finds one as
// kubectl does (`kimops status`) must see only the clusters a test names.
const env = {
  XDG_CACHE_HOME: join(tmpdir(), `kimops-test-cache-${process.pid}`),
  KUBECONFIG: '',
  KUBERNETES_SERVICE_HOST: '',
};

// Integration tests that need no control plane, e.g. kimops end to end against loopback git and GitHub test
// servers, as a process, the demo — seconds each, too slow for the unit suite on a busy 2-core machine.
const STANDALONE = 'test/integration/standalone/**/*.test.ts';
// `KIMOPS_TESTENV=none npm run test:integration` runs only those, without starting a plane.
const withoutPlane = process.env.KIMOPS_TESTENV === 'none';

// Two projects (docs/design.md §5): `unit` needs no external process and runs everywhere, a test in under
// ~2 s (test/README.md); `integration` needs the test control plane and the git server, started by its
// global setup, and holds the standalone tests too.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          env,
          include: [
            '{generator,applier,backfiller,status,model,rules,adapters,cli,policies,scripts,deploy}/**/*.test.ts',
            'test/helpers/**/*.test.ts',
          ],
          // A guard against a hung test, not a budget: a unit test is meant to take under ~2 s, but two runs
          // side by side on 2 busy cores stretch the slower ones past vitest's 5 s default.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          env,
          include: withoutPlane ? [STANDALONE] : ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: withoutPlane ? [] : ['test/integration/global-setup.ts'],
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
