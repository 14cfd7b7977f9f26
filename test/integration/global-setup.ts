// Starts the test control plane once per run — up.sh also seeds it — or reuses the one named by
// KIMOPS_TESTENV (started with `npm run testenv:up`), and hands its state dir to the tests.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runTestenvScript } from '../helpers/testenv.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testenvStateDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const reused = process.env.KIMOPS_TESTENV;
  const stateDir = reused ?? join(tmpdir(), `kimops-testenv-vitest-${process.pid}`);
  if (!reused) runTestenvScript('up.sh', stateDir);
  project.provide('testenvStateDir', stateDir);
  return () => {
    if (!reused) runTestenvScript('down.sh', stateDir);
  };
}
