// Issue 7's end-to-end acceptance (the scenario: keb-lifecycle.ts), with the plane's admin identities and the
// three loops in this process.
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { useTestProject } from '../helpers/projects.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, planeAsShootCluster } from '../helpers/testenv.js';
import { kebLifecycle } from './keb-lifecycle.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('keb-e2e');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

describe('KEB against generate, apply and backfill', () => {
  it(
    'create → Ready with the kubeconfig Secret and the PR trail; an unconvertible Runtime → Failed/ConversionErr; update → Pending within 4 s → Ready; retryable Failed stays Pending; non-retryable Failed; delete → Terminating → gone',
    () => kebLifecycle({ env, project, dir, simulator }),
    240_000,
  );
});
