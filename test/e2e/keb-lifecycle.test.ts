// Issue 7's end-to-end acceptance (the scenario: keb-lifecycle.ts), with the plane's admin identities and the
// three loops in this process.
import { describe, it } from 'vitest';
import { kebLifecycle, useKebPlane } from './keb-lifecycle.js';

const plane = useKebPlane('keb-e2e');

describe('KEB against generate, apply and backfill', () => {
  it(
    'create → Ready with the kubeconfig Secret and the PR trail; an unconvertible Runtime → Failed/ConversionErr; update → Pending within 4 s → Ready; retryable Failed stays Pending; non-retryable Failed; delete → Terminating → gone',
    () => kebLifecycle(plane),
    240_000,
  );
});
