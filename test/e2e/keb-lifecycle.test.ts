// Issue 7's end-to-end acceptance (the scenario: keb-lifecycle.ts), with the plane's admin identities and the
// three loops in this process.
import { describe, it } from 'vitest';
import { kebLifecycle, useKebPlane } from './keb-lifecycle.js';

const plane = useKebPlane('keb-e2e');

describe('KEB against generate, apply and backfill', () => {
  it(
    'create → the SKR configured, then Ready with the kubeconfig Secret and the PR trail; an unconvertible Runtime → Failed/ConversionErr; update → Pending within 4 s → Ready; administrators changed → an skr PR, then the SKR; an OIDC the SKR refuses stays Pending; retryable Failed stays Pending; non-retryable Failed; delete → Terminating → gone',
    () => kebLifecycle(plane),
    240_000,
  );
});
