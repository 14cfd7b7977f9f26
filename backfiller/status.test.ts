import { describe, expect, it } from 'vitest';
import { setCondition as setStatusCondition } from '../model/conditions.js';
import type { RuntimeCondition, RuntimeStatus } from '../model/runtime-status.js';
import type { ShootStatus } from '../model/shoot.js';
import {
  type StatusInput,
  type StatusShoot,
  changePending,
  changedConditions,
  conditionEvent,
  eventConditions,
  finalizerAction,
  finalizerRelease,
  kubeconfigSecretName,
  runtimeStatus,
  statusChanged,
} from './status.js';
import type { LiveRuntime } from '../model/runtime.js';
import type { PipelineState, SkrError } from '../model/pipeline-facts.js';

// Literal strings on purpose (not the module's constants): a changed constant must fail here.
const FINALIZER = 'runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook';
const RUNTIME_GENERATION = 'infrastructuremanager.kyma-project.io/runtime-generation';
const APPLIED_COMMIT = 'kimops.kyma-project.io/applied-commit';
const TIMED_OUT = 'kimops.kyma-project.io/operation-timed-out';
const SUSPEND = 'operator.kyma-project.io/suspend-patch-reconciliation';
const APPLIED_TREE = 'kimops.kyma-project.io/applied-tree';
const SKR_APPLIED_TREE = 'kimops.kyma-project.io/skr-applied-tree';
const OIDC = 'shoot-oidc-service';

const T0 = '2026-07-01T10:00:00Z';
const NOW = new Date('2026-07-01T12:34:56.789Z');
const NOW_TEXT = '2026-07-01T12:34:56Z';

function runtime(
  options: {
    generation?: number;
    status?: unknown;
    deleting?: boolean;
    finalizers?: string[];
    annotations?: Record<string, string>;
  } = {},
): LiveRuntime {
  return {
    metadata: {
      name: 'rt-1',
      namespace: 'kcp-system',
      generation: options.generation ?? 2,
      labels: { 'kyma-project.io/runtime-id': 'rt-1' },
      ...(options.annotations && { annotations: options.annotations }),
      ...(options.deleting && { deletionTimestamp: T0 }),
      ...(options.finalizers && { finalizers: options.finalizers }),
    },
    spec: { shoot: { name: 'c-12345' } },
    ...(options.status !== undefined && { status: options.status }),
  };
}

interface ShootOptions {
  type?: string;
  state?: string;
  description?: string;
  codes?: string[][];
  generation?: number;
  observed?: number;
  /** The Runtime generation recorded on the Shoot; `null` leaves the annotation out. */
  applied?: number | null;
  annotations?: Record<string, string>;
  deleting?: boolean;
  noOperation?: boolean;
  /** The folder tree the applier applied to the Shoot (default `tree-1`); `null` leaves the annotation out. */
  tree?: string | null;
  /** The tree whose SKR objects the applier applied (default: `tree`, i.e. configured); `null`: none yet. */
  skrTree?: string | null;
  /** The Shoot's extensions (default: the OIDC extension enabled, as KIM renders it). */
  extensions?: { type: string; disabled?: boolean }[];
}

function shoot(options: ShootOptions = {}): StatusShoot {
  const status: ShootStatus = { observedGeneration: options.observed ?? options.generation ?? 5 };
  if (!options.noOperation) {
    status.lastOperation = {
      type: options.type ?? 'Create',
      state: options.state ?? 'Succeeded',
      progress: 100,
      description: options.description ?? 'Shoot cluster has been successfully reconciled.',
      lastUpdateTime: T0,
    };
  }
  if (options.codes)
    status.lastErrors = options.codes.map((codes, i) => ({
      description: `error ${i + 1}`,
      codes,
      taskID: `task-${i}`,
    }));
  const applied = options.applied === undefined ? 2 : options.applied;
  const tree = options.tree === undefined ? 'tree-1' : options.tree;
  const skrTree = options.skrTree === undefined ? tree : options.skrTree;
  return {
    metadata: {
      name: 'c-12345',
      namespace: 'garden-kyma',
      generation: options.generation ?? 5,
      annotations: {
        ...(applied !== null && { [RUNTIME_GENERATION]: String(applied) }),
        ...(tree !== null && { [APPLIED_TREE]: tree }),
        ...(skrTree !== null && { [SKR_APPLIED_TREE]: skrTree }),
        ...options.annotations,
      },
      ...(options.deleting && { deletionTimestamp: T0 }),
    },
    spec: { extensions: options.extensions ?? [{ type: OIDC, disabled: false }] },
    status,
  };
}

function input(overrides: Partial<StatusInput> = {}): StatusInput {
  return { runtime: runtime(), shoot: shoot(), kubeconfigReady: true, pipeline: {}, now: NOW, ...overrides };
}

function condition(status: RuntimeStatus, type: string): RuntimeCondition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** `State/CondType/Reason/Status "msg"`, the contract's notation. */
function kim(status: RuntimeStatus, type: string): string {
  const c = condition(status, type);
  return c ? `${status.state}/${c.type}/${c.reason}/${c.status} "${c.message}"` : `${status.state}/${type} missing`;
}

describe('runtimeStatus: docs/contracts/runtime-status.md §1 (no Shoot yet, CreateShoot, pipeline failures)', () => {
  it.each<[string, Partial<StatusInput>, string]>([
    ['no Shoot, no failure', { shoot: undefined }, 'Pending/Provisioned/Initialised/Unknown "Runtime initialized"'],
    [
      'no Shoot, seed check failed',
      {
        shoot: undefined,
        pipeline: {
          seedNotFound:
            'Cannot find available seed for the region eu-west-1. The followig regions have seeds ready: [eu-central-1].',
        },
      },
      'Failed/Provisioned/SeedNotFound/False "Cannot find available seed for the region eu-west-1. The followig regions have seeds ready: [eu-central-1]."',
    ],
    [
      'no Shoot, conversion error',
      { shoot: undefined, pipeline: { conversionError: 'missing required label kyma-project.io/region' } },
      'Failed/Provisioned/ConversionErr/False "Runtime conversion error missing required label kyma-project.io/region"',
    ],
    [
      'no Shoot, create refused (kimops: a False condition ⇒ Failed, a fix in Git)',
      { shoot: undefined, pipeline: { applyError: 'admission webhook denied the request' } },
      'Failed/Provisioned/GardenerErr/False "Gardener API create error: admission webhook denied the request"',
    ],
    [
      'Shoot created, no lastOperation yet',
      { shoot: shoot({ noOperation: true }) },
      'Pending/Provisioned/Pending/Unknown "Shoot is pending"',
    ],
    [
      'Shoot exists, conversion error (§3 patch path)',
      { pipeline: { conversionError: 'bad worker' } },
      'Failed/Provisioned/ConversionErr/False "Runtime conversion error bad worker"',
    ],
    [
      'Shoot exists, patch refused (§3 Errors)',
      { pipeline: { applyError: 'spec.region: field is immutable' } },
      'Failed/Provisioned/ProcessingErr/False "Gardener API shoot patch error: spec.region: field is immutable"',
    ],
    [
      'validation failed (kimops: ConversionErr)',
      { pipeline: { validationError: 'policy no-public-lb: ...' } },
      'Failed/Provisioned/ConversionErr/False "Runtime validation error policy no-public-lb: ..."',
    ],
    [
      'change blocked, Shoot exists',
      { pipeline: { proposal: { url: 'https://github.example/l/pull/7', state: 'blocked' } } },
      'Failed/Provisioned/ProcessingErr/False "Runtime change cannot be applied to the Shoot, see https://github.example/l/pull/7"',
    ],
    [
      'change blocked, no Shoot',
      { shoot: undefined, pipeline: { proposal: { url: 'https://github.example/l/pull/7', state: 'blocked' } } },
      'Failed/Provisioned/CreationErr/False "Runtime change cannot be applied to the Shoot, see https://github.example/l/pull/7"',
    ],
    [
      'seedNotFound is ignored once the Shoot exists',
      { pipeline: { seedNotFound: 'x' } },
      'Ready/Provisioned/ShootCreationCompleted/True "Shoot creation completed"',
    ],
  ])('%s', (_what, overrides, expected) => {
    expect(kim(runtimeStatus(input(overrides)), 'Provisioned')).toBe(expected);
  });

  it('a Shoot gone after Provisioned was set is not "Runtime initialized" again: §1 CreateShoot\'s "Shoot is pending"', () => {
    const ready = runtimeStatus(input());
    expect(ready.state).toBe('Ready');
    const gone = runtimeStatus(input({ runtime: runtime({ status: ready }), shoot: undefined }));
    expect(kim(gone, 'Provisioned')).toBe('Pending/Provisioned/Pending/Unknown "Shoot is pending"');
    expect(gone.provisioningCompleted).toBe(true);
    // Only a Runtime without a Provisioned condition is initialised.
    const fresh = runtimeStatus(
      input({ runtime: runtime({ status: { state: 'Pending', conditions: [] } }), shoot: undefined }),
    );
    expect(kim(fresh, 'Provisioned')).toBe('Pending/Provisioned/Initialised/Unknown "Runtime initialized"');
  });

  it('a stale failure (pipeline.generation older than the Runtime) does not fail the Runtime', () => {
    const status = runtimeStatus(input({ shoot: undefined, pipeline: { generation: 1, conversionError: 'old' } }));
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Initialised/Unknown "Runtime initialized"');
    const current = runtimeStatus(input({ shoot: undefined, pipeline: { generation: 2, conversionError: 'new' } }));
    expect(current.state).toBe('Failed');
  });
});

describe('runtimeStatus: docs/contracts/runtime-status.md §2 (Shoot status → Runtime status)', () => {
  it.each<[string, ShootOptions, string]>([
    // WaitForShootCreation
    ...(['Processing', 'Pending', 'Aborted', 'Error'].map((state) => [
      `Create ${state}`,
      { type: 'Create', state, description: 'Waiting for infrastructure' },
      'Pending/Provisioned/Pending/Unknown "Shoot creation in progress"',
    ]) as [string, ShootOptions, string][]),
    [
      'Create Pending, scheduling failed',
      {
        type: 'Create',
        state: 'Pending',
        description: 'Failed to schedule Shoot: none out of the 3 seeds has a matching provider for "aws"',
      },
      'Failed/Provisioned/CreationErr/False "Shoot creation failed, no matching seeds"',
    ],
    [
      'Create Error, scheduling failed (with trailing text)',
      {
        type: 'Create',
        state: 'Error',
        description: 'Failed to schedule Shoot: none out of the 12 seeds has a matching provider for "gcp" (retrying)',
      },
      'Failed/Provisioned/CreationErr/False "Shoot creation failed, no matching seeds"',
    ],
    [
      'Create Processing, another scheduling message',
      { type: 'Create', state: 'Processing', description: 'Failed to schedule Shoot: no seed in region' },
      'Pending/Provisioned/Pending/Unknown "Shoot creation in progress"',
    ],
    [
      'Create Failed, retryable',
      { type: 'Create', state: 'Failed', codes: [['ERR_INFRA_QUOTA_EXCEEDED']] },
      'Pending/Provisioned/Pending/Unknown "Retryable gardener errors during cluster provisioning"',
    ],
    [
      'Create Failed, not retryable',
      { type: 'Create', state: 'Failed', codes: [['ERR_INFRA_UNAUTHORIZED']] },
      'Failed/Provisioned/CreationErr/False "Shoot creation failed"',
    ],
    [
      'Create Failed, no lastErrors (not retryable)',
      { type: 'Create', state: 'Failed' },
      'Failed/Provisioned/CreationErr/False "Shoot creation failed"',
    ],
    [
      'Create Succeeded',
      { type: 'Create', state: 'Succeeded' },
      'Ready/Provisioned/ShootCreationCompleted/True "Shoot creation completed"',
    ],
    // WaitForShootReconcile
    ...(['Processing', 'Pending', 'Aborted', 'Error'].map((state) => [
      `Reconcile ${state}`,
      {
        type: 'Reconcile',
        state,
        description: 'Failed to schedule Shoot: none out of the 3 seeds has a matching provider for "aws"',
      },
      'Pending/Provisioned/Processing/Unknown "Shoot update is in progress"',
    ]) as [string, ShootOptions, string][]),
    [
      'Reconcile Failed, retryable',
      { type: 'Reconcile', state: 'Failed', codes: [['ERR_INFRA_RATE_LIMITS_EXCEEDED']] },
      'Pending/Provisioned/Pending/Unknown "Retryable gardener errors during cluster reconcile"',
    ],
    [
      'Reconcile Failed, not retryable: codes joined',
      {
        type: 'Reconcile',
        state: 'Failed',
        codes: [
          ['ERR_INFRA_UNAUTHENTICATED', 'ERR_INFRA_DEPENDENCIES'],
          ['ERR_INFRA_UNAUTHENTICATED', 'ERR_CLEANUP_CLUSTER_RESOURCES'],
        ],
      },
      'Failed/Provisioned/ProcessingErr/False "ERR_INFRA_UNAUTHENTICATED, ERR_INFRA_DEPENDENCIES, ERR_CLEANUP_CLUSTER_RESOURCES"',
    ],
    [
      'Reconcile Succeeded',
      { type: 'Reconcile', state: 'Succeeded' },
      'Ready/Provisioned/ConfigurationCompleted/True "Runtime processing completed successfully"',
    ],
    [
      'Migrate in progress: reconcile wait',
      { type: 'Migrate', state: 'Processing' },
      'Pending/Provisioned/Processing/Unknown "Shoot update is in progress"',
    ],
  ])('%s → %s', (_what, shootOptions, expected) => {
    expect(kim(runtimeStatus(input({ shoot: shoot(shootOptions) })), 'Provisioned')).toBe(expected);
  });

  it('Succeeded, kubeconfig Secret missing → KubeconfigReady GardenerClusterCRCreated, Pending', () => {
    const status = runtimeStatus(input({ kubeconfigReady: false }));
    expect(kim(status, 'Provisioned')).toBe(
      'Pending/Provisioned/ShootCreationCompleted/True "Shoot creation completed"',
    );
    expect(kim(status, 'KubeconfigReady')).toBe(
      'Pending/KubeconfigReady/GardenerClusterCRCreated/Unknown "Gardener Cluster CR created, waiting for readiness"',
    );
    expect(condition(status, 'Configured')).toBeUndefined();
    expect(status.provisioningCompleted).toBeUndefined();
  });

  it('Succeeded with the kubeconfig Secret → GardenerClusterCRReady, then Ready with Configured and provisioningCompleted', () => {
    const status = runtimeStatus(input());
    expect(kim(status, 'KubeconfigReady')).toBe(
      'Ready/KubeconfigReady/GardenerClusterCRReady/True "Gardener Cluster CR is ready."',
    );
    expect(kim(status, 'Configured')).toBe(
      'Ready/Configured/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(status.provisioningCompleted).toBe(true);
    expect(status.conditions?.slice(0, 5).map((c) => c.type)).toEqual([
      'Provisioned',
      'KubeconfigReady',
      'KymaSystemNSCreated',
      'OidcAndConfigMapConfigured',
      'Configured',
    ]);
  });

  it('a state Gardener does not define leaves KIM conditions and state as they were (KIM: stop)', () => {
    const before = runtimeStatus(input({ shoot: shoot({ type: 'Reconcile', state: 'Processing' }) }));
    const status = runtimeStatus(
      input({ runtime: runtime({ status: before }), shoot: shoot({ type: 'Reconcile', state: 'Exploded' }) }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
    expect(kim(status, 'ShootReconciled')).toMatch(
      /^Pending\/ShootReconciled\/ShootStatusUnknown\/Unknown ".*Exploded/,
    );
  });

  it('copies shootLastOperation and shootLastErrors (only the CRD fields), and drops them when the Shoot has none', () => {
    const live = shoot({ type: 'Reconcile', state: 'Failed', codes: [['ERR_INFRA_UNAUTHORIZED']] });
    (live.status?.lastErrors?.[0] as Record<string, unknown>).lastUpdateTime = T0;
    (live.status?.lastErrors?.[0] as Record<string, unknown>).extra = 'pruned by the API server';
    const status = runtimeStatus(input({ shoot: live }));
    expect(status.shootLastOperation).toEqual({
      type: 'Reconcile',
      state: 'Failed',
      progress: 100,
      description: 'Shoot cluster has been successfully reconciled.',
      lastUpdateTime: T0,
    });
    expect(status.shootLastErrors).toEqual([
      { description: 'error 1', taskID: 'task-0', codes: ['ERR_INFRA_UNAUTHORIZED'], lastUpdateTime: T0 },
    ]);
    const healed = runtimeStatus(input({ runtime: runtime({ status }), shoot: shoot({ type: 'Reconcile' }) }));
    expect(healed.shootLastErrors).toBeUndefined();
  });

  it('fills the lastOperation fields the CRD requires when the Shoot lacks them', () => {
    const live: StatusShoot = {
      metadata: { name: 's', generation: 1, creationTimestamp: T0, annotations: { [RUNTIME_GENERATION]: '2' } },
      status: { observedGeneration: 1, lastOperation: { type: 'Create', state: 'Pending' } },
    };
    expect(runtimeStatus(input({ shoot: live })).shootLastOperation).toEqual({
      type: 'Create',
      state: 'Pending',
      progress: 0,
      description: '',
      lastUpdateTime: T0,
    });
  });
});

describe('runtimeStatus: freshness (KIM re-entry guard, §2 point 3; §3 shouldPatchShoot)', () => {
  const readyStatus = runtimeStatus(input());

  it('a generation bump on a Ready Runtime is Pending at once, before anything reached the Shoot', () => {
    expect(readyStatus.state).toBe('Ready');
    const status = runtimeStatus(
      input({
        runtime: runtime({ generation: 3, status: readyStatus }),
        shoot: shoot({ type: 'Reconcile', applied: 2 }),
      }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
    expect(condition(status, 'Ready')?.status).toBe('False');
    expect(condition(status, 'Reconciling')?.status).toBe('True');
    for (const type of ['Provisioned', 'Ready', 'Reconciling', 'Stalled', 'ShootReconciled'])
      expect(condition(status, type)?.observedGeneration).toBe(3);
    // Not decided at this step: kept as they were, for the generation they were computed at (KIM leaves them too).
    expect(condition(status, 'KubeconfigReady')).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect(statusChanged(readyStatus, status)).toBe(true);
  });

  it('a bump after a succeeded Create reads as an update', () => {
    const status = runtimeStatus(
      input({
        runtime: runtime({ generation: 3, status: readyStatus }),
        shoot: shoot({ type: 'Create', state: 'Succeeded', applied: 2 }),
      }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
  });

  it('a bump while the Create is still running stays a creation', () => {
    const status = runtimeStatus(
      input({ runtime: runtime({ generation: 3 }), shoot: shoot({ type: 'Create', state: 'Processing', applied: 2 }) }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Pending/Unknown "Shoot creation in progress"');
  });

  it('a Shoot without the runtime-generation annotation has not been applied from this Runtime yet', () => {
    expect(runtimeStatus(input({ shoot: shoot({ applied: null }) })).state).toBe('Pending');
  });

  it('a suspended Runtime is not held Pending by the annotation (its Shoot is never touched)', () => {
    const r = runtime({ generation: 9, annotations: { [SUSPEND]: 'true' } });
    expect(changePending(r, shoot({ applied: 2 }))).toBe(false);
    expect(runtimeStatus(input({ runtime: r, shoot: shoot({ applied: 2 }) })).state).toBe('Ready');
  });

  it('applied, but Gardener has not observed the new Shoot generation: Pending even with the old Succeeded', () => {
    const status = runtimeStatus(
      input({
        runtime: runtime({ status: readyStatus }),
        shoot: shoot({ type: 'Reconcile', state: 'Succeeded', generation: 6, observed: 5 }),
      }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
    expect(condition(status, 'ShootReconciled')?.message).toContain(
      'generation 6 not yet observed by Gardener (observed 5)',
    );
  });

  it('a Failed Runtime re-enters Pending when Gardener runs again, then becomes Ready', () => {
    const failedStatus = runtimeStatus(
      input({ shoot: shoot({ type: 'Reconcile', state: 'Failed', codes: [['ERR_INFRA_UNAUTHORIZED']] }) }),
    );
    expect(failedStatus.state).toBe('Failed');
    const again = runtimeStatus(
      input({ runtime: runtime({ status: failedStatus }), shoot: shoot({ type: 'Reconcile', state: 'Processing' }) }),
    );
    expect(again.state).toBe('Pending');
    const ready = runtimeStatus(
      input({ runtime: runtime({ status: again }), shoot: shoot({ type: 'Reconcile', state: 'Succeeded' }) }),
    );
    expect(ready.state).toBe('Ready');
    expect(condition(ready, 'Stalled')?.status).toBe('False');
  });

  it('a non-retryable Failed whose spec changed since is in progress, not Failed', () => {
    const status = runtimeStatus(
      input({
        shoot: shoot({
          type: 'Reconcile',
          state: 'Failed',
          codes: [['ERR_INFRA_UNAUTHORIZED']],
          generation: 6,
          observed: 5,
        }),
      }),
    );
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
  });

  it('a Ready Runtime whose Secret disappears is Pending again', () => {
    const status = runtimeStatus(input({ runtime: runtime({ status: readyStatus }), kubeconfigReady: false }));
    expect(kim(status, 'KubeconfigReady')).toBe(
      'Pending/KubeconfigReady/GardenerClusterCRCreated/Unknown "Gardener Cluster CR created, waiting for readiness"',
    );
    expect(status.provisioningCompleted).toBe(true);
  });
});

describe('runtimeStatus: the SKR (docs/skr.md; KIM CreateKymaNamespace, ConfigureSKR, ApplyClusterRoleBindings)', () => {
  const readyStatus = runtimeStatus(input());
  const skrError = (
    step: SkrError['step'],
    message = 'connection refused',
    tree = 'tree-1',
  ): StatusInput['pipeline'] => ({
    skrError: { step, message, tree },
  });
  // KIM's status of a Ready Runtime just taken over (ADR 0011): its own condition types only, as KIM's runtime
  // controller leaves a Ready Runtime.
  const kimTypes = [
    'Provisioned',
    'KubeconfigReady',
    'KymaSystemNSCreated',
    'OidcAndConfigMapConfigured',
    'Configured',
  ];
  const kims = {
    state: 'Ready',
    provisioningCompleted: true,
    conditions: (readyStatus.conditions ?? []).filter((c) => kimTypes.includes(c.type)),
  };
  /** Per failed step: the condition KIM writes, as `kim()` prints it, and what Reconciling tells (docs/skr.md). */
  const failedSteps: [SkrError['step'], string, string, string[]][] = [
    [
      'client',
      'Configured',
      'Pending/Configured/ConfigurationError/False "failed to get runtime client"',
      ['connection refused', "check the Shoot's API server", 'the applier retries on every sync'],
    ],
    [
      'namespace',
      'KymaSystemNSCreated',
      'Pending/KymaSystemNSCreated/KymaSystemNSError/False "connection refused"',
      ['the SKR refused the kyma-system Namespace', 'the applier retries on every sync'],
    ],
    [
      'provisioning-info',
      'OidcAndConfigMapConfigured',
      'Pending/OidcAndConfigMapConfigured/ConfigMapErr/Unknown "Failed to apply kyma-provisioning-info config map, scheduling for retry - connection refused"',
      ['kyma-system/kyma-provisioning-info', 'the applier retries on every sync'],
    ],
    [
      'oidc',
      'OidcAndConfigMapConfigured',
      'Pending/OidcAndConfigMapConfigured/OidcConfigurationErr/Unknown "Failed to create OpenIDConnect resource. Scheduling for retry"',
      ['connection refused', 'additionalOidcConfig', 'skrDefaultOidc', 'the applier retries on every sync'],
    ],
    [
      'administrators',
      'Configured',
      'Pending/Configured/ConfigurationError/False "failed to update kubeconfig admin access"',
      ['connection refused', 'spec.security.administrators', 'the applier retries on every sync'],
    ],
  ];

  it('configured for the applied tree, OIDC on: KIM’s chain to Ready', () => {
    const status = runtimeStatus(input());
    expect(kim(status, 'KymaSystemNSCreated')).toBe(
      'Ready/KymaSystemNSCreated/KymaSystemNSReady/True "Creation of kyma-system Namespace"',
    );
    expect(kim(status, 'OidcAndConfigMapConfigured')).toBe(
      'Ready/OidcAndConfigMapConfigured/OidcAndConfigMapsConfigured/True "OIDC and kyma-provisioning-info configuration completed"',
    );
    expect(kim(status, 'Configured')).toBe(
      'Ready/Configured/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(status.provisioningCompleted).toBe(true);
  });

  it.each<[string, { type: string; disabled?: boolean }[], string]>([
    ['disabled', [{ type: OIDC, disabled: true }], 'OIDC extension disabled'],
    ['absent', [{ type: 'shoot-dns-service' }], 'OIDC extension disabled'],
    ['no extensions at all', [], 'OIDC extension disabled'],
    ['listed without `disabled`', [{ type: OIDC }], 'OIDC and kyma-provisioning-info configuration completed'],
    ['enabled', [{ type: OIDC, disabled: false }], 'OIDC and kyma-provisioning-info configuration completed'],
  ])('the OIDC extension %s → "%s"', (_what, extensions, message) => {
    const status = runtimeStatus(input({ shoot: shoot({ extensions }) }));
    expect(kim(status, 'OidcAndConfigMapConfigured')).toBe(
      `Ready/OidcAndConfigMapConfigured/OidcAndConfigMapsConfigured/True "${message}"`,
    );
  });

  it('not configured yet (a Shoot applied by an older kimops: no skr-applied-tree): Pending after KubeconfigReady, never Ready', () => {
    const status = runtimeStatus(input({ shoot: shoot({ skrTree: null }) }));
    expect(kim(status, 'KubeconfigReady')).toBe(
      'Pending/KubeconfigReady/GardenerClusterCRReady/True "Gardener Cluster CR is ready."',
    );
    for (const type of ['KymaSystemNSCreated', 'OidcAndConfigMapConfigured', 'Configured'])
      expect(condition(status, type)).toBeUndefined();
    expect(status.provisioningCompleted).toBeUndefined();
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'GardenerClusterCRReady' });
    expect(condition(status, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'GardenerClusterCRReady',
      message:
        "Gardener Cluster CR is ready. The applier configures the SKR for the Shoot's applied tree tree-1 (configured: none) on its next sync",
    });
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'False', message: 'Gardener Cluster CR is ready.' });
  });

  it('a Shoot the applier has not applied from main (no applied-tree) is not configured either', () => {
    const status = runtimeStatus(input({ shoot: shoot({ tree: null, skrTree: null }) }));
    expect(status.state).toBe('Pending');
    expect(condition(status, 'Reconciling')?.message).toContain(
      'The applier configures the SKR once it has applied the Shoot from main',
    );
    // An skr-applied-tree alone (no applied-tree) says nothing about the tree on the Shoot.
    expect(runtimeStatus(input({ shoot: shoot({ tree: null, skrTree: 'tree-1' }) })).state).toBe('Pending');
  });

  it('a Shoot taken over from KIM, its SKR not yet configured by kimops, keeps what KIM said Ready: no Pending blip, its conditions as they were', () => {
    expect(kims.conditions.map((c) => c.type).sort()).toEqual([...kimTypes].sort());
    const kimShoot = shoot({ tree: null, skrTree: null });
    const first = runtimeStatus(input({ runtime: runtime({ status: kims }), shoot: kimShoot }));
    expect(first.state).toBe('Ready');
    for (const kimCondition of kims.conditions) expect(condition(first, kimCondition.type)).toEqual(kimCondition);
    // Taken over (applied from main, a new tree), its SKR not yet configured by kimops: still KIM's, still Ready.
    const takenOver = runtimeStatus(input({ runtime: runtime({ status: kims }), shoot: shoot({ skrTree: null }) }));
    expect(takenOver.state).toBe('Ready');
    for (const kimCondition of kims.conditions) expect(condition(takenOver, kimCondition.type)).toEqual(kimCondition);
    // What KIM had not finished stays unfinished: Pending until the applier configures the SKR.
    const notReady = { ...kims, state: 'Pending' };
    expect(runtimeStatus(input({ runtime: runtime({ status: notReady }), shoot: kimShoot })).state).toBe('Pending');
  });

  it.each(failedSteps)(
    'taken over from KIM, the applier’s first attempt at the tree fails at %s: KIM’s Ready ends, KIM’s %s as for a kimops-led Runtime',
    (step, type, expected, told) => {
      const takenOver = shoot({ skrTree: null });
      const failing = runtimeStatus(
        input({ runtime: runtime({ status: kims }), shoot: takenOver, pipeline: skrError(step) }),
      );
      expect(kim(failing, type)).toBe(expected);
      // The same condition, Ready and Reconciling as a Runtime kimops led from the start.
      const kimopsLed = runtimeStatus(input({ shoot: takenOver, pipeline: skrError(step) }));
      for (const t of [type, 'Ready', 'Reconciling']) expect(condition(failing, t)).toEqual(condition(kimopsLed, t));
      for (const text of told) expect(condition(failing, 'Reconciling')?.message).toContain(text);
      expect(condition(failing, 'Ready')?.status).toBe('False');
      // KEB and its operators see the change: KIM's Event for the failed step.
      expect(eventConditions(kims, failing).map((c) => c.type)).toContain(type);
    },
  );

  it('taken over from KIM: a failure of the registry caches’ cleanup ends KIM’s Ready too; an error of another tree is stale', () => {
    const takenOver = shoot({ skrTree: null });
    const previous = runtime({ status: kims });
    const cleanup = runtimeStatus(
      input({ runtime: previous, shoot: takenOver, pipeline: skrError('registry-cache', 'forbidden') }),
    );
    expect(cleanup.state).toBe('Pending');
    expect(condition(cleanup, 'Reconciling')?.message).toContain('forbidden');
    // The applier has not tried the Shoot's tree yet (an error of tree-0 is about an older folder): still KIM's.
    const stale = runtimeStatus(
      input({ runtime: previous, shoot: takenOver, pipeline: skrError('administrators', 'old', 'tree-0') }),
    );
    expect(stale.state).toBe('Ready');
    for (const kimCondition of kims.conditions) expect(condition(stale, kimCondition.type)).toEqual(kimCondition);
  });

  it('taken over from KIM: Ready (KIM’s), Pending on the first failed attempt, Ready (kimops’s) once skr-applied-tree is the tree', () => {
    const keptReady = runtimeStatus(input({ runtime: runtime({ status: kims }), shoot: shoot({ skrTree: null }) }));
    expect(keptReady.state).toBe('Ready');
    const failing = runtimeStatus(
      input({
        runtime: runtime({ status: keptReady }),
        shoot: shoot({ skrTree: null }),
        pipeline: skrError('administrators', 'Unauthorized'),
      }),
    );
    expect(kim(failing, 'Configured')).toBe(
      'Pending/Configured/ConfigurationError/False "failed to update kubeconfig admin access"',
    );
    // The next attempt succeeded (the report still holds the error: it is older than the recorded skr-applied-tree).
    const configured = runtimeStatus(
      input({
        runtime: runtime({ status: failing }),
        shoot: shoot(),
        pipeline: skrError('administrators', 'Unauthorized'),
      }),
    );
    expect(configured.state).toBe('Ready');
    expect(kim(configured, 'Configured')).toBe(
      'Ready/Configured/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(eventConditions(failing, configured).map((c) => c.type)).toEqual(['Configured']);
  });

  it('KEB’s update: Pending at once; Pending while the SKR holds the older tree; Ready once it holds the new one', () => {
    expect(readyStatus.state).toBe('Ready');
    // The Runtime changed: nothing on the Shoot yet (changePending), although its SKR is configured for tree-1.
    const bumped = runtimeStatus(input({ runtime: runtime({ generation: 3, status: readyStatus }) }));
    expect(kim(bumped, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
    // Applied (tree-2) and reconciled by Gardener; the SKR still holds tree-1's objects.
    const shootDone = shoot({ type: 'Reconcile', applied: 3, tree: 'tree-2', skrTree: 'tree-1' });
    const waiting = runtimeStatus(input({ runtime: runtime({ generation: 3, status: bumped }), shoot: shootDone }));
    expect(waiting.state).toBe('Pending');
    expect(condition(waiting, 'Reconciling')?.message).toContain('applied tree tree-2 (configured: tree-1)');
    // Not decided at this step: the earlier Configured stays as it was (KIM leaves it too), the state says Pending.
    expect(condition(waiting, 'Configured')).toMatchObject({ status: 'True', observedGeneration: 2 });
    const ready = runtimeStatus(
      input({
        runtime: runtime({ generation: 3, status: waiting }),
        shoot: shoot({ type: 'Reconcile', applied: 3, tree: 'tree-2' }),
      }),
    );
    expect(kim(ready, 'Configured')).toBe(
      'Ready/Configured/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(condition(ready, 'Configured')?.observedGeneration).toBe(3);
  });

  it('the kubeconfig comes first: a configured SKR without the Secret is Pending at KubeconfigReady', () => {
    const status = runtimeStatus(input({ kubeconfigReady: false }));
    expect(kim(status, 'KubeconfigReady')).toMatch(/^Pending\/KubeconfigReady\/GardenerClusterCRCreated\/Unknown/);
    expect(condition(status, 'Configured')).toBeUndefined();
  });

  it.each(failedSteps)(
    'the applier failed at %s: KIM’s %s, Pending also when False (UpdateStatePending), the fix in Reconciling',
    (step, type, expected, told) => {
      const status = runtimeStatus(input({ shoot: shoot({ skrTree: null }), pipeline: skrError(step) }));
      expect(kim(status, type)).toBe(expected);
      expect(status.provisioningCompleted).toBeUndefined();
      const reconciling = condition(status, 'Reconciling');
      const head = condition(status, type);
      expect(reconciling).toMatchObject({ status: 'True', reason: head?.reason });
      for (const text of told) expect(reconciling?.message).toContain(text);
      expect(reconciling?.message.startsWith(head?.message ?? '?')).toBe(true);
      expect(condition(status, 'Ready')).toMatchObject({
        status: 'False',
        reason: head?.reason,
        message: head?.message,
      });
      expect(condition(status, 'Stalled')?.status).toBe('False');
      // One Event for the failed step's condition: Warning when False (KIM's sFnEmmitEvent).
      const event = eventConditions(readyStatus, status).find((c) => c.type === type);
      expect(event && conditionEvent(runtime(), event).type).toBe(head?.status === 'False' ? 'Warning' : 'Normal');
    },
  );

  it('the steps before the failed one are written as done, in KIM’s order', () => {
    const types = (step: SkrError['step']) =>
      runtimeStatus(input({ shoot: shoot({ skrTree: null }), pipeline: skrError(step) }))
        .conditions?.map((c) => `${c.type}=${c.status}`)
        .slice(0, 5);
    expect(types('client')).toEqual([
      'Provisioned=True',
      'KubeconfigReady=True',
      'Configured=False',
      'Ready=False',
      'Reconciling=True',
    ]);
    expect(types('provisioning-info')?.slice(0, 4)).toEqual([
      'Provisioned=True',
      'KubeconfigReady=True',
      'KymaSystemNSCreated=True',
      'OidcAndConfigMapConfigured=Unknown',
    ]);
    expect(types('administrators')?.slice(0, 5)).toEqual([
      'Provisioned=True',
      'KubeconfigReady=True',
      'KymaSystemNSCreated=True',
      'OidcAndConfigMapConfigured=True',
      'Configured=False',
    ]);
  });

  it('a Ready Runtime whose SKR fails for a new tree turns Pending with the reason, and Ready again once applied', () => {
    const failing = runtimeStatus(
      input({
        runtime: runtime({ status: readyStatus }),
        shoot: shoot({ tree: 'tree-2', skrTree: 'tree-1' }),
        pipeline: skrError('administrators', 'Unauthorized', 'tree-2'),
      }),
    );
    expect(kim(failing, 'Configured')).toBe(
      'Pending/Configured/ConfigurationError/False "failed to update kubeconfig admin access"',
    );
    expect(failing.provisioningCompleted).toBe(true);
    expect(eventConditions(readyStatus, failing).map((c) => c.type)).toEqual(['Configured']);
    const healed = runtimeStatus(
      input({
        runtime: runtime({ status: failing }),
        shoot: shoot({ tree: 'tree-2' }),
        pipeline: skrError('administrators', 'Unauthorized', 'tree-2'),
      }),
    );
    expect(healed.state).toBe('Ready');
  });

  it('an skrError of another tree is stale and ignored', () => {
    expect(runtimeStatus(input({ pipeline: skrError('namespace', 'old', 'tree-0') })).state).toBe('Ready');
    const waiting = runtimeStatus(
      input({ shoot: shoot({ tree: 'tree-2', skrTree: 'tree-1' }), pipeline: skrError('namespace', 'old', 'tree-1') }),
    );
    expect(waiting.state).toBe('Pending');
    expect(condition(waiting, 'KymaSystemNSCreated')).toBeUndefined();
    expect(condition(waiting, 'Reconciling')?.message).toContain('applied tree tree-2');
  });

  it('a configured SKR wins over an error of the same tree (a report older than the apply that succeeded)', () => {
    expect(runtimeStatus(input({ pipeline: skrError('oidc') })).state).toBe('Ready');
  });

  it('an skrError says nothing while the Shoot has not succeeded, nor while the Runtime is being deleted', () => {
    const progressing = runtimeStatus(
      input({ shoot: shoot({ type: 'Reconcile', state: 'Processing', skrTree: null }), pipeline: skrError('client') }),
    );
    expect(kim(progressing, 'Provisioned')).toBe(
      'Pending/Provisioned/Processing/Unknown "Shoot update is in progress"',
    );
    expect(condition(progressing, 'Configured')).toBeUndefined();
    const deleting = runtimeStatus(
      input({
        runtime: runtime({ deleting: true, finalizers: [FINALIZER] }),
        shoot: shoot({ skrTree: null }),
        pipeline: skrError('client'),
      }),
    );
    expect(kim(deleting, 'Deprovisioned')).toBe(
      'Terminating/Deprovisioned/GardenerShootDeleted/Unknown "Runtime shoot deletion started"',
    );
    for (const type of ['KymaSystemNSCreated', 'OidcAndConfigMapConfigured', 'Configured'])
      expect(condition(deleting, type)).toBeUndefined();
  });
});

describe('runtimeStatus: operation timeouts (rules/operation-timeouts.ts)', () => {
  const value =
    'Create started 2026-07-01T09:00:00Z has no result after 1h0m0s (kimops.yaml apply.timeouts); Gardener goes on trying';

  it('a Create past its timeout is Failed with CreationErr, naming the timeout and the fix', () => {
    const status = runtimeStatus(
      input({ shoot: shoot({ type: 'Create', state: 'Processing', annotations: { [TIMED_OUT]: value } }) }),
    );
    expect(kim(status, 'Provisioned')).toBe(
      `Failed/Provisioned/CreationErr/False "Shoot operation timed out: ${value}"`,
    );
    const stalled = condition(status, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'CreationErr' });
    expect(stalled?.message).toContain('apply.timeouts');
    expect(stalled?.message).toContain('gardener.cloud/operation=retry');
  });

  it('a Create that never got a lastOperation times out too', () => {
    expect(
      kim(
        runtimeStatus(input({ shoot: shoot({ noOperation: true, annotations: { [TIMED_OUT]: value } }) })),
        'Provisioned',
      ),
    ).toMatch(/^Failed\/Provisioned\/CreationErr\/False/);
  });

  it('a Reconcile past its timeout is Failed with ProcessingErr', () => {
    const status = runtimeStatus(
      input({
        shoot: shoot({ type: 'Reconcile', state: 'Error', annotations: { [TIMED_OUT]: 'Reconcile started …' } }),
      }),
    );
    expect(kim(status, 'Provisioned')).toBe(
      'Failed/Provisioned/ProcessingErr/False "Shoot operation timed out: Reconcile started …"',
    );
  });

  it('an operation that ended is judged by its result, not by a leftover annotation', () => {
    expect(
      runtimeStatus(
        input({ shoot: shoot({ type: 'Create', state: 'Succeeded', annotations: { [TIMED_OUT]: value } }) }),
      ).state,
    ).toBe('Ready');
  });

  it('a new Runtime generation not applied yet is Pending, not the old operation’s timeout', () => {
    const status = runtimeStatus(
      input({
        runtime: runtime({ generation: 3 }),
        shoot: shoot({ type: 'Reconcile', state: 'Error', applied: 2, annotations: { [TIMED_OUT]: value } }),
      }),
    );
    expect(status.state).toBe('Pending');
  });

  it('a stale mark on a Shoot whose new generation Gardener has not observed yet is ignored: Pending, not Failed', () => {
    // The applier applied Runtime generation 3 (Shoot generation 6); Gardener still shows the old operation's result.
    const stale = shoot({
      type: 'Reconcile',
      state: 'Error',
      generation: 6,
      observed: 5,
      applied: 3,
      annotations: { [TIMED_OUT]: value },
    });
    const status = runtimeStatus(input({ runtime: runtime({ generation: 3 }), shoot: stale }));
    expect(kim(status, 'Provisioned')).toBe('Pending/Provisioned/Processing/Unknown "Shoot update is in progress"');
    const old = shoot({
      type: 'Reconcile',
      state: 'Succeeded',
      generation: 6,
      observed: 5,
      applied: 3,
      annotations: { [TIMED_OUT]: value },
    });
    expect(runtimeStatus(input({ runtime: runtime({ generation: 3 }), shoot: old })).state).toBe('Pending');
    // Once Gardener observed it, a mark still there is about the operation now running.
    const current = shoot({
      type: 'Reconcile',
      state: 'Processing',
      generation: 6,
      observed: 6,
      applied: 3,
      annotations: { [TIMED_OUT]: value },
    });
    expect(runtimeStatus(input({ runtime: runtime({ generation: 3 }), shoot: current })).state).toBe('Failed');
  });

  it('a stale mark during deletion is ignored until Gardener observed the deletion', () => {
    const deleting = runtime({ deleting: true, finalizers: [FINALIZER] });
    const behind = shoot({
      type: 'Reconcile',
      state: 'Error',
      generation: 7,
      observed: 6,
      deleting: true,
      annotations: { [TIMED_OUT]: value },
    });
    expect(kim(runtimeStatus(input({ runtime: deleting, shoot: behind })), 'Deprovisioned')).toBe(
      'Terminating/Deprovisioned/GardenerShootDeleted/Unknown "Runtime shoot deletion started"',
    );
  });
});

describe('runtimeStatus: deletion (§4) and the finalizer', () => {
  const deleting = runtime({ deleting: true, finalizers: [FINALIZER] });

  it.each<[string, Partial<StatusInput>, string]>([
    [
      'Shoot still there (deletion on its way through Git)',
      { shoot: shoot() },
      'Terminating/Deprovisioned/GardenerShootDeleted/Unknown "Runtime shoot deletion started"',
    ],
    [
      'Shoot being deleted',
      { shoot: shoot({ type: 'Delete', state: 'Processing', deleting: true }) },
      'Terminating/Deprovisioned/GardenerShootDeleted/Unknown "Runtime shoot deletion started"',
    ],
    [
      'delete refused (kimops: a False condition ⇒ Failed)',
      { shoot: shoot(), pipeline: { applyError: 'forbidden' } },
      'Failed/Deprovisioned/GardenerShootDeleted/False "Gardener API shoot delete error"',
    ],
    [
      'deletion past its timeout',
      {
        shoot: shoot({
          type: 'Delete',
          state: 'Error',
          deleting: true,
          annotations: { [TIMED_OUT]: 'Delete started …' },
        }),
      },
      'Failed/Deprovisioned/DeletionErr/False "Shoot operation timed out: Delete started …"',
    ],
    ['Shoot gone', { shoot: undefined }, 'Terminating/Deprovisioned/GardenerShootDeleted/True "Runtime shoot deleted"'],
    [
      'pipeline failures do not stop a deletion',
      { shoot: shoot(), pipeline: { conversionError: 'x', proposal: { url: 'u', state: 'blocked' } } },
      'Terminating/Deprovisioned/GardenerShootDeleted/Unknown "Runtime shoot deletion started"',
    ],
  ])('%s', (_what, overrides, expected) => {
    expect(kim(runtimeStatus(input({ runtime: deleting, ...overrides })), 'Deprovisioned')).toBe(expected);
  });

  it('keeps the lifecycle conditions it had (KIM does not clear them) and says Reconciling while Terminating', () => {
    const ready = runtimeStatus(input());
    const status = runtimeStatus(
      input({ runtime: runtime({ deleting: true, finalizers: [FINALIZER], status: ready }) }),
    );
    expect(kim(status, 'Provisioned')).toBe(
      'Terminating/Provisioned/ShootCreationCompleted/True "Shoot creation completed"',
    );
    expect(condition(status, 'Reconciling')).toMatchObject({ status: 'True', reason: 'GardenerShootDeleted' });
    expect(condition(status, 'Ready')?.status).toBe('False');
  });

  it.each<[string, LiveRuntime, StatusShoot | undefined, boolean, string]>([
    ['deleting, Shoot gone, finalizer held', deleting, undefined, true, 'release'],
    ['deleting, Shoot still there', deleting, shoot(), false, 'none'],
    ['deleting, finalizer already gone', runtime({ deleting: true, finalizers: ['other'] }), undefined, false, 'none'],
    ['not deleting, no finalizer', runtime(), shoot(), false, 'add'],
    ['not deleting, no Shoot, no finalizer', runtime(), undefined, false, 'add'],
    ['not deleting, finalizer there', runtime({ finalizers: [FINALIZER] }), undefined, false, 'none'],
  ])('finalizer: %s', (_what, r, s, release, action) => {
    expect(finalizerRelease(r, s)).toBe(release);
    expect(finalizerAction(r, s)).toBe(action);
  });
});

describe('runtimeStatus: Kubernetes-standard conditions (kstatus)', () => {
  it.each<[string, Partial<StatusInput>, string, [string, string, string]]>([
    ['Ready', {}, 'Ready', ['True', 'False', 'False']],
    ['Pending', { shoot: shoot({ state: 'Processing' }) }, 'Pending', ['False', 'True', 'False']],
    ['Failed', { shoot: shoot({ state: 'Failed' }) }, 'Failed', ['False', 'False', 'True']],
    ['Terminating', { runtime: runtime({ deleting: true }) }, 'Terminating', ['False', 'True', 'False']],
  ])('%s', (_what, overrides, state, [ready, reconciling, stalled]) => {
    const status = runtimeStatus(input(overrides));
    expect(status.state).toBe(state);
    expect([
      condition(status, 'Ready')?.status,
      condition(status, 'Reconciling')?.status,
      condition(status, 'Stalled')?.status,
    ]).toEqual([ready, reconciling, stalled]);
    for (const type of ['Ready', 'Reconciling', 'Stalled']) expect(condition(status, type)?.observedGeneration).toBe(2);
  });

  it('Ready=True names the Shoot, the generation and the Secret; Stalled carries the reason and the fix', () => {
    expect(condition(runtimeStatus(input()), 'Ready')).toMatchObject({
      reason: 'RuntimeReady',
      message:
        'Shoot garden-kyma/c-12345 reconciled at Runtime generation 2, SKR configured, kubeconfig Secret kcp-system/kubeconfig-rt-1 present',
    });
    const stalled = condition(
      runtimeStatus(
        input({ shoot: shoot({ type: 'Reconcile', state: 'Failed', codes: [['ERR_INFRA_UNAUTHORIZED']] }) }),
      ),
      'Stalled',
    );
    expect(stalled?.reason).toBe('ProcessingErr');
    expect(stalled?.message).toMatch(/^ERR_INFRA_UNAUTHORIZED: .*operation=retry/);
  });

  it('kubeconfigSecretName', () => {
    expect(kubeconfigSecretName(runtime())).toBe('kubeconfig-rt-1');
  });
});

describe('runtimeStatus: GitOps trail', () => {
  const url = 'https://github.example/landscape/pull/42';

  it.each<[PipelineState['proposal'] & object, [string, string, string], [string, string, string]]>([
    [{ url, state: 'open' }, ['True', 'PullRequestOpen', url], ['False', 'PullRequestOpen', url]],
    [{ url, state: 'waiting-for-review' }, ['True', 'WaitingForReview', url], ['False', 'WaitingForReview', url]],
    [{ url, state: 'merged', commit: 'abc123' }, ['True', 'PullRequestMerged', url], ['True', 'Merged', 'abc123']],
    [{ url, state: 'blocked' }, ['True', 'ChangeBlocked', url], ['False', 'ChangeBlocked', url]],
  ])('proposal %o', (proposal, proposed, merged) => {
    const status = runtimeStatus(input({ pipeline: { proposal } }));
    const pick = (c: RuntimeCondition | undefined) => [c?.status, c?.reason, c?.message];
    expect(pick(condition(status, 'ChangeProposed'))).toEqual(proposed);
    expect(pick(condition(status, 'ChangeMerged'))).toEqual(merged);
  });

  it('ChangeApplied follows the Shoot’s applied-commit and runtime-generation annotations', () => {
    const applied = runtimeStatus(input({ shoot: shoot({ annotations: { [APPLIED_COMMIT]: 'abc123' } }) }));
    expect(condition(applied, 'ChangeApplied')).toMatchObject({ status: 'True', reason: 'Applied', message: 'abc123' });
    const behind = runtimeStatus(
      input({ runtime: runtime({ generation: 3 }), shoot: shoot({ annotations: { [APPLIED_COMMIT]: 'abc123' } }) }),
    );
    expect(condition(behind, 'ChangeApplied')).toMatchObject({
      status: 'False',
      reason: 'ApplyPending',
      message: 'abc123 (Runtime generation 2 applied, generation 3 not yet)',
    });
    const refused = runtimeStatus(input({ pipeline: { applyError: 'no' } }));
    expect(condition(refused, 'ChangeApplied')).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
      message: 'no',
    });
    const none = runtimeStatus(input({ shoot: undefined }));
    expect(condition(none, 'ChangeApplied')).toMatchObject({
      status: 'False',
      reason: 'ShootNotFound',
      message: 'Shoot c-12345 does not exist yet',
    });
  });

  it('ShootReconciled: the Shoot’s own health, without progress ticks', () => {
    const at = (progress: number): RuntimeStatus => {
      const live = shoot({ type: 'Reconcile', state: 'Processing' });
      if (live.status?.lastOperation) live.status.lastOperation.progress = progress;
      return runtimeStatus(input({ shoot: live }));
    };
    expect(condition(at(10), 'ShootReconciled')).toMatchObject({
      status: 'Unknown',
      reason: 'ShootProgressing',
      message: 'Reconcile Processing',
    });
    expect(changedConditions(at(10), at(60))).toEqual([]);
    expect(condition(runtimeStatus(input()), 'ShootReconciled')).toMatchObject({
      status: 'True',
      reason: 'ShootSucceeded',
    });
    expect(condition(runtimeStatus(input({ shoot: shoot({ state: 'Failed' }) })), 'ShootReconciled')).toMatchObject({
      status: 'False',
      reason: 'ShootFailed',
    });
  });

  it('a stale pipeline still shows its proposal, and no stale ApplyFailed', () => {
    const status = runtimeStatus(
      input({
        runtime: runtime({ generation: 3 }),
        pipeline: { generation: 2, applyError: 'old', proposal: { url, state: 'open' } },
      }),
    );
    expect(condition(status, 'ChangeProposed')?.reason).toBe('PullRequestOpen');
    expect(condition(status, 'ChangeApplied')?.reason).not.toBe('ApplyFailed');
    expect(status.state).toBe('Pending');
  });
});

describe('conditions over time: lastTransitionTime, kept fields, statusChanged, Events', () => {
  it('keeps lastTransitionTime of a condition whose status did not change, updates it when it did', () => {
    const old = {
      state: 'Pending',
      conditions: [
        {
          type: 'Provisioned',
          status: 'Unknown',
          reason: 'Pending',
          message: 'Shoot creation in progress',
          lastTransitionTime: T0,
        },
      ],
    };
    const retry = runtimeStatus(
      input({
        runtime: runtime({ status: old }),
        shoot: shoot({ state: 'Failed', codes: [['ERR_INFRA_QUOTA_EXCEEDED']] }),
      }),
    );
    expect(condition(retry, 'Provisioned')).toMatchObject({
      status: 'Unknown',
      message: 'Retryable gardener errors during cluster provisioning',
      lastTransitionTime: T0,
      observedGeneration: 2,
    });
    expect(condition(retry, 'Ready')?.lastTransitionTime).toBe(NOW_TEXT);
    const done = runtimeStatus(input({ runtime: runtime({ status: old }) }));
    expect(condition(done, 'Provisioned')).toMatchObject({ status: 'True', lastTransitionTime: NOW_TEXT });
  });

  it('keeps conditions it does not decide, their order, auditLogCR and provisioningCompleted', () => {
    const old = {
      state: 'Ready',
      provisioningCompleted: true,
      auditLogCR: 'auditlog-7',
      conditions: [
        {
          type: 'OidcAndConfigMapConfigured',
          status: 'True',
          reason: 'OidcAndConfigMapsConfigured',
          message: 'OIDC extension disabled',
          lastTransitionTime: T0,
        },
      ],
    };
    const status = runtimeStatus(input({ runtime: runtime({ status: old }), shoot: shoot({ state: 'Processing' }) }));
    expect(status.conditions?.[0]).toEqual(old.conditions[0]);
    expect(status.auditLogCR).toBe('auditlog-7');
    expect(status.provisioningCompleted).toBe(true);
  });

  it('setStatusCondition follows meta.SetStatusCondition', () => {
    const conditions: RuntimeCondition[] = [
      { type: 'A', status: 'True', reason: 'R', message: 'm', lastTransitionTime: T0, observedGeneration: 1 },
    ];
    setStatusCondition(conditions, {
      type: 'A',
      status: 'True',
      reason: 'R2',
      message: 'm2',
      lastTransitionTime: NOW_TEXT,
    });
    expect(conditions[0]).toEqual({ type: 'A', status: 'True', reason: 'R2', message: 'm2', lastTransitionTime: T0 });
    setStatusCondition(conditions, {
      type: 'B',
      status: 'False',
      reason: 'R',
      message: '',
      lastTransitionTime: NOW_TEXT,
      observedGeneration: 2,
    });
    expect(conditions.map((c) => c.type)).toEqual(['A', 'B']);
  });

  it('statusChanged ignores lastTransitionTime and condition order, and nothing else', () => {
    const first = runtimeStatus(input());
    const again = runtimeStatus(input({ runtime: runtime({ status: first }), now: new Date('2026-07-02T00:00:00Z') }));
    expect(statusChanged(first, again)).toBe(false);
    const reordered = {
      ...first,
      conditions: [...(first.conditions ?? [])].reverse().map((c) => ({ ...c, lastTransitionTime: T0 })),
    };
    expect(statusChanged(reordered, first)).toBe(false);
    expect(statusChanged(undefined, first)).toBe(true);
    expect(statusChanged({}, first)).toBe(true);
    expect(statusChanged(first, { ...first, state: 'Pending' })).toBe(true);
    const withMessage = structuredClone(first);
    if (withMessage.conditions?.[0]) withMessage.conditions[0].message = 'other';
    expect(statusChanged(first, withMessage)).toBe(true);
    const withProgress = structuredClone(first);
    if (withProgress.shootLastOperation) withProgress.shootLastOperation.progress = 99;
    expect(statusChanged(first, withProgress)).toBe(true);
    expect(statusChanged({ ...first, shootLastErrors: [] }, first)).toBe(false);
    expect(
      statusChanged({ ...first, provisioningCompleted: false }, { ...first, provisioningCompleted: undefined }),
    ).toBe(false);
  });

  it('changedConditions and conditionEvent: one Event per changed condition, Warning if False, "<msg>: <ns>/<name>"', () => {
    const pendingStatus = runtimeStatus(input({ shoot: shoot({ state: 'Processing' }) }));
    const failedStatus = runtimeStatus(
      input({ runtime: runtime({ status: pendingStatus }), shoot: shoot({ state: 'Failed' }) }),
    );
    const changed = changedConditions(pendingStatus, failedStatus).map((c) => c.type);
    expect(changed).toEqual(expect.arrayContaining(['Provisioned', 'Reconciling', 'Stalled', 'ShootReconciled']));
    expect(changed).not.toContain('ChangeApplied');
    const provisioned = condition(failedStatus, 'Provisioned');
    if (!provisioned) throw new Error('no Provisioned condition');
    expect(conditionEvent(runtime(), provisioned)).toEqual({
      type: 'Warning',
      reason: 'CreationErr',
      message: 'Shoot creation failed: kcp-system/rt-1',
    });
    const ready = condition(runtimeStatus(input()), 'Provisioned');
    if (!ready) throw new Error('no Provisioned condition');
    expect(conditionEvent(runtime(), ready).type).toBe('Normal');
    expect(changedConditions(undefined, pendingStatus)).toHaveLength(pendingStatus.conditions?.length ?? -1);
  });

  it("eventConditions: Events only for KIM's condition types, not for Ready/Reconciling/Stalled or the GitOps trail", () => {
    const pendingStatus = runtimeStatus(input({ shoot: shoot({ state: 'Processing' }) }));
    const failedStatus = runtimeStatus(
      input({ runtime: runtime({ status: pendingStatus }), shoot: shoot({ state: 'Failed' }) }),
    );
    expect(eventConditions(pendingStatus, failedStatus).map((c) => c.type)).toEqual(['Provisioned']);
    expect(eventConditions(undefined, pendingStatus).map((c) => c.type)).toEqual(['Provisioned']);
    const readyStatus = runtimeStatus(input({ runtime: runtime({ status: pendingStatus }) }));
    expect(
      eventConditions(pendingStatus, readyStatus)
        .map((c) => c.type)
        .sort(),
    ).toEqual(['Configured', 'KubeconfigReady', 'KymaSystemNSCreated', 'OidcAndConfigMapConfigured', 'Provisioned']);
    const deleting = runtimeStatus(
      input({
        runtime: runtime({ status: readyStatus, deleting: true, finalizers: [FINALIZER] }),
        shoot: shoot({ deleting: true }),
      }),
    );
    expect(eventConditions(readyStatus, deleting).map((c) => c.type)).toEqual(['Deprovisioned']);
  });
});
