import { defineConfig } from 'vitest/config';

// Two projects (DESIGN.md §5): `unit` needs no external process and runs everywhere;
// `integration` needs the test control plane and the git server, started by its global setup.
export default defineConfig({
  test: {
    // The integration project is filled by the test-control-plane issue; until then it is empty.
    passWithNoTests: true,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{generator,applier,backfiller,model,adapters,cli,policies,scripts}/**/*.test.ts', 'test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          pool: 'forks',
          maxWorkers: 1,
        },
      },
    ],
  },
});
