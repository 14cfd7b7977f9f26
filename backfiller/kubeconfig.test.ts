import { describe, expect, it } from 'vitest';
import {
  type GardenerClusterLike,
  type KubeconfigOutcome,
  type RotationDecision,
  type SecretLike,
  adminKubeconfigRequest,
  forceRotationRemovalPatch,
  gardenerClusterFor,
  gardenerClusterStatus,
  goFormatFloatG,
  kubeconfigExpirationSample,
  kubeconfigSecretFor,
  parseRfc3339,
  readAdminKubeconfigResponse,
  rotationDecision,
  rotationPeriodMs,
  rotationThresholdMs,
} from './kubeconfig.js';
import type { LiveRuntime } from '../model/runtime.js';
// The rotation reasons print their durations with it: its cases are pinned here too.
import { formatGoDurationMs as goDuration } from '../model/go-time.js';

// Literal strings and numbers on purpose (not the module's constants): a changed constant must fail here.
const LAST_SYNC = 'operator.kyma-project.io/last-sync';
const FORCE = 'operator.kyma-project.io/force-kubeconfig-rotation';
const HOUR = 3_600_000;
/** 0.95 × 0.6 × 24h = 13h40m48s. */
const THRESHOLD = 49_248_000;

const T0 = '2026-07-01T00:00:00Z';
const T0_MS = Date.parse(T0);
const at = (offsetMs: number): Date => new Date(T0_MS + offsetMs);

function runtime(
  overrides: { labels?: Record<string, string>; namespace?: string; shoot?: LiveRuntime['spec'] } = {},
): LiveRuntime {
  return {
    metadata: {
      name: 'rt-cr-name',
      ...(overrides.namespace !== undefined ? { namespace: overrides.namespace } : { namespace: 'kcp-system' }),
      labels: overrides.labels ?? {
        'kyma-project.io/instance-id': 'inst-1',
        'kyma-project.io/runtime-id': 'rt-1',
        'kyma-project.io/broker-plan-id': 'plan-id',
        'kyma-project.io/broker-plan-name': 'aws',
        'kyma-project.io/global-account-id': 'ga-1',
        'kyma-project.io/subaccount-id': 'sa-1',
        'kyma-project.io/region': 'label-region-ignored',
        'operator.kyma-project.io/kyma-name': 'kyma-1',
        'kyma-project.io/controlled-by-provisioner': 'false',
      },
    },
    spec: overrides.shoot ?? { shoot: { name: 'c-12345', platformRegion: 'cf-eu10', region: 'eu-central-1' } },
  };
}

const GC_LABELS = {
  'kyma-project.io/instance-id': 'inst-1',
  'kyma-project.io/runtime-id': 'rt-1',
  'kyma-project.io/broker-plan-id': 'plan-id',
  'kyma-project.io/broker-plan-name': 'aws',
  'kyma-project.io/global-account-id': 'ga-1',
  'kyma-project.io/subaccount-id': 'sa-1',
  'operator.kyma-project.io/kyma-name': 'kyma-1',
  'kyma-project.io/platform-region': 'cf-eu10',
  'kyma-project.io/region': 'eu-central-1',
  'kyma-project.io/shoot-name': 'c-12345',
  'operator.kyma-project.io/managed-by': 'infrastructure-manager',
  'operator.kyma-project.io/internal': 'true',
};

function cluster(annotations?: Record<string, string>): GardenerClusterLike {
  return {
    metadata: { name: 'rt-1', namespace: 'kcp-system', labels: GC_LABELS, ...(annotations && { annotations }) },
    spec: {
      shoot: { name: 'c-12345' },
      kubeconfig: { secret: { name: 'kubeconfig-rt-1', namespace: 'kcp-system', key: 'config' } },
    },
  };
}

function secret(
  lastSync: string | null,
  data: Record<string, string> = { config: 'YXBpVmVyc2lvbjogdjE=' },
): SecretLike {
  return {
    metadata: {
      name: 'kubeconfig-rt-1',
      namespace: 'kcp-system',
      ...(lastSync !== null && { annotations: { [LAST_SYNC]: lastSync } }),
    },
    data,
  };
}

describe('gardenerClusterFor', () => {
  it("builds KIM's GardenerCluster: name = runtime ID, KIM's seven Runtime labels, regions and shoot name from the spec", () => {
    expect(gardenerClusterFor(runtime(), 'c-12345.kyma.ondemand.com')).toEqual({
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'GardenerCluster',
      metadata: {
        name: 'rt-1',
        namespace: 'kcp-system',
        annotations: { 'skr-domain': 'c-12345.kyma.ondemand.com' },
        labels: GC_LABELS,
      },
      spec: {
        shoot: { name: 'c-12345' },
        kubeconfig: { secret: { name: 'kubeconfig-rt-1', namespace: 'kcp-system', key: 'config' } },
      },
    });
  });

  it.each([
    ['no domain known', undefined],
    ['an empty domain', ''],
  ])('leaves the skr-domain annotation out with %s', (_case, domain) => {
    expect(gardenerClusterFor(runtime(), domain)?.metadata).not.toHaveProperty('annotations');
  });

  it('writes a Runtime label KIM copies but the Runtime lacks as "" (as KIM does), and nothing it does not copy', () => {
    const gc = gardenerClusterFor(
      runtime({ labels: { 'kyma-project.io/runtime-id': 'rt-2', 'custom.example.com/team': 'x' } }),
    );
    expect(gc?.metadata.labels).toEqual({
      'kyma-project.io/instance-id': '',
      'kyma-project.io/runtime-id': 'rt-2',
      'kyma-project.io/broker-plan-id': '',
      'kyma-project.io/broker-plan-name': '',
      'kyma-project.io/global-account-id': '',
      'kyma-project.io/subaccount-id': '',
      'operator.kyma-project.io/kyma-name': '',
      'kyma-project.io/platform-region': 'cf-eu10',
      'kyma-project.io/region': 'eu-central-1',
      'kyma-project.io/shoot-name': 'c-12345',
      'operator.kyma-project.io/managed-by': 'infrastructure-manager',
      'operator.kyma-project.io/internal': 'true',
    });
  });

  it.each([
    ['the Runtime namespace', 'other-ns', 'other-ns'],
    ['kcp-system when the Runtime has none', '', 'kcp-system'],
  ])('places the GardenerCluster and the Secret in %s', (_case, namespace, expected) => {
    const gc = gardenerClusterFor(runtime({ namespace }));
    expect([gc?.metadata.namespace, gc?.spec.kubeconfig.secret.namespace]).toEqual([expected, expected]);
  });

  it.each([
    ['no runtime-id label', runtime({ labels: { 'kyma-project.io/instance-id': 'inst-1' } })],
    ['an empty runtime-id label', runtime({ labels: { 'kyma-project.io/runtime-id': '' } })],
    ['no spec.shoot.name', runtime({ shoot: { shoot: { region: 'eu-central-1' } } })],
  ])('is undefined for a Runtime with %s', (_case, rt) => {
    expect(gardenerClusterFor(rt, 'x.example.com')).toBeUndefined();
  });
});

describe('kubeconfigSecretFor', () => {
  it("writes KIM's Secret: the GardenerCluster's labels + managed-by + cluster-name, last-sync in whole seconds, key config in base64", () => {
    const gc = gardenerClusterFor(runtime(), 'c-12345.kyma.ondemand.com');
    if (!gc) throw new Error('no GardenerCluster');
    const text = 'apiVersion: v1\nkind: Config\n';
    expect(kubeconfigSecretFor(gc, text, new Date('2026-07-01T12:34:56.789Z'))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rt-1',
        namespace: 'kcp-system',
        labels: { ...GC_LABELS, 'operator.kyma-project.io/cluster-name': 'rt-1' },
        annotations: { 'operator.kyma-project.io/last-sync': '2026-07-01T12:34:56Z' },
      },
      type: 'Opaque',
      data: { config: Buffer.from(text).toString('base64') },
    });
  });

  it("takes name, namespace and key from the GardenerCluster's spec, and overrides a managed-by label it carries", () => {
    const gc: GardenerClusterLike = {
      metadata: { name: 'rt-9', namespace: 'kcp-system', labels: { 'operator.kyma-project.io/managed-by': 'someone' } },
      spec: { kubeconfig: { secret: { name: 'custom', namespace: 'elsewhere', key: 'kubeconfig' } } },
    };
    const built = kubeconfigSecretFor(gc, 'k', new Date(T0));
    expect([built.metadata.name, built.metadata.namespace, Object.keys(built.data)]).toEqual([
      'custom',
      'elsewhere',
      ['kubeconfig'],
    ]);
    expect(built.metadata.labels).toEqual({
      'operator.kyma-project.io/managed-by': 'infrastructure-manager',
      'operator.kyma-project.io/cluster-name': 'rt-9',
    });
  });

  it('is fresh right after being written: the next decision keeps it for the whole threshold', () => {
    const gc = cluster();
    const written = kubeconfigSecretFor(gc, 'k', at(123));
    expect(rotationDecision({ secret: written, gardenerCluster: gc, now: at(123) })).toMatchObject({
      action: 'keep',
      cause: 'fresh',
      nextCheckInMs: THRESHOLD - 123,
    });
  });
});

describe('forceRotationRemovalPatch', () => {
  it('removes the force annotation by JSON merge patch', () => {
    expect(forceRotationRemovalPatch()).toEqual({
      metadata: { annotations: { 'operator.kyma-project.io/force-kubeconfig-rotation': null } },
    });
  });
});

describe('adminKubeconfigRequest', () => {
  it.each([
    ['24h by default (KIM --kubeconfig-expiration-time)', undefined, 86_400],
    ['the configured expiration', 6_000, 6_000],
    ["Gardener's minimum", 600, 600],
  ])('asks for %s', (_case, seconds, expected) => {
    expect(adminKubeconfigRequest(seconds)).toEqual({
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind: 'AdminKubeconfigRequest',
      spec: { expirationSeconds: expected },
    });
  });

  it.each([[599], [0], [-1], [3600.5], [Number.NaN]])('refuses %s seconds (Gardener would)', (seconds) => {
    expect(() => adminKubeconfigRequest(seconds)).toThrow(RangeError);
  });
});

describe('readAdminKubeconfigResponse', () => {
  const text = 'apiVersion: v1\nkind: Config\nclusters: []\n';
  it('decodes status.kubeconfig and reads status.expirationTimestamp', () => {
    const answer = {
      status: { kubeconfig: Buffer.from(text).toString('base64'), expirationTimestamp: '2026-07-02T00:00:00Z' },
    };
    expect(readAdminKubeconfigResponse(answer)).toEqual({
      ok: true,
      kubeconfig: text,
      expiresAt: new Date('2026-07-02T00:00:00Z'),
    });
  });

  it.each([
    ['no body', undefined, 'the AdminKubeconfigRequest answer has no status.kubeconfig'],
    ['no status', { spec: {} }, 'the AdminKubeconfigRequest answer has no status.kubeconfig'],
    ['a number', { status: { kubeconfig: 5 } }, 'the AdminKubeconfigRequest answer has no status.kubeconfig'],
    [
      'not base64',
      { status: { kubeconfig: 'not base64!' } },
      'status.kubeconfig of the AdminKubeconfigRequest answer is not base64',
    ],
    [
      'blank text',
      { status: { kubeconfig: Buffer.from('  \n').toString('base64') } },
      'the AdminKubeconfigRequest answer has an empty kubeconfig',
    ],
  ])('fails for %s', (_case, body, error) => {
    expect(readAdminKubeconfigResponse(body)).toEqual({ ok: false, error });
  });

  it('leaves expiresAt out when Gardener sent none or an unreadable one', () => {
    const kubeconfig = Buffer.from(text).toString('base64');
    expect(readAdminKubeconfigResponse({ status: { kubeconfig } })).toEqual({ ok: true, kubeconfig: text });
    expect(readAdminKubeconfigResponse({ status: { kubeconfig, expirationTimestamp: 'tomorrow' } })).toEqual({
      ok: true,
      kubeconfig: text,
    });
  });
});

describe('rotation period and threshold', () => {
  it.each([
    ['KIM defaults: 0.6 × 24h = 14h24m, rotate at 13h40m48s', {}, 51_840_000, THRESHOLD],
    ["KIM's Helm chart: 0.6 × 100m = 60m, rotate at 57m", { expirationSeconds: 6_000 }, 3_600_000, 3_420_000],
    ['0.5 × 2h = 1h', { expirationSeconds: 7_200, minimalRotationTime: 0.5 }, HOUR, 3_420_000],
    // Go truncates ratio × minutes to whole minutes: 0.29 × 100 = 28.999999999999996 → 28m.
    [
      'truncated to whole minutes like Go',
      { expirationSeconds: 6_000, minimalRotationTime: 0.29 },
      1_680_000,
      1_596_000,
    ],
  ])('%s', (_case, options, period, threshold) => {
    expect(rotationPeriodMs(options)).toBe(period);
    expect(rotationThresholdMs(options)).toBe(threshold);
  });

  it.each([
    [{ minimalRotationTime: 0 }],
    [{ minimalRotationTime: 1.5 }],
    [{ minimalRotationTime: Number.NaN }],
    [{ expirationSeconds: 10 }],
  ])('refuses %j', (options) => {
    expect(() => rotationPeriodMs(options)).toThrow(RangeError);
  });
});

describe('rotationDecision', () => {
  interface Case {
    name: string;
    secret: SecretLike | undefined;
    annotations?: Record<string, string>;
    now: Date;
    options?: { expirationSeconds?: number; minimalRotationTime?: number };
    expected: Pick<RotationDecision, 'action' | 'cause' | 'nextCheckInMs' | 'forced'>;
  }

  const cases: Case[] = [
    {
      name: 'no Secret → create',
      secret: undefined,
      now: at(0),
      expected: { action: 'create', cause: 'secret-missing', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: 'no Secret, forced → create, and the annotation is then removed',
      secret: undefined,
      annotations: { [FORCE]: 'true' },
      now: at(0),
      expected: { action: 'create', cause: 'secret-missing', nextCheckInMs: THRESHOLD, forced: true },
    },
    {
      name: 'just synced → keep for the whole threshold',
      secret: secret(T0),
      now: at(0),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: '1 h old → keep until 13h40m48s',
      secret: secret(T0),
      now: at(HOUR),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: THRESHOLD - HOUR, forced: false },
    },
    {
      name: '1 s before 0.95 × 0.6 × 24h → keep',
      secret: secret(T0),
      now: at(THRESHOLD - 1000),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: 1000, forced: false },
    },
    {
      name: '1 ms before 0.95 × 0.6 × 24h → keep',
      secret: secret(T0),
      now: at(THRESHOLD - 1),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: 1, forced: false },
    },
    {
      name: 'exactly 0.95 × 0.6 × 24h old → rotate (KIM: age ≥ threshold)',
      secret: secret(T0),
      now: at(THRESHOLD),
      expected: { action: 'rotate', cause: 'due', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: '1 s after the threshold → rotate',
      secret: secret(T0),
      now: at(THRESHOLD + 1000),
      expected: { action: 'rotate', cause: 'due', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: 'past the whole expiry → rotate',
      secret: secret(T0),
      now: at(30 * HOUR),
      expected: { action: 'rotate', cause: 'due', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: "Helm's 100m: 56m59s old → keep",
      secret: secret(T0),
      now: at(3_419_000),
      options: { expirationSeconds: 6_000 },
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: 1000, forced: false },
    },
    {
      name: "Helm's 100m: 57m old → rotate",
      secret: secret(T0),
      now: at(3_420_000),
      options: { expirationSeconds: 6_000 },
      expected: { action: 'rotate', cause: 'due', nextCheckInMs: 3_420_000, forced: false },
    },
    {
      name: 'forced on a fresh Secret → rotate',
      secret: secret(T0),
      annotations: { [FORCE]: 'true' },
      now: at(1000),
      expected: { action: 'rotate', cause: 'forced', nextCheckInMs: THRESHOLD, forced: true },
    },
    {
      name: 'forced by an empty annotation value (KIM checks presence) → rotate',
      secret: secret(T0),
      annotations: { [FORCE]: '' },
      now: at(1000),
      expected: { action: 'rotate', cause: 'forced', nextCheckInMs: THRESHOLD, forced: true },
    },
    {
      name: 'last-sync missing → rotate',
      secret: secret(null),
      now: at(0),
      expected: { action: 'rotate', cause: 'last-sync-missing', nextCheckInMs: THRESHOLD, forced: false },
    },
    ...[
      'yesterday',
      '',
      '2026-07-01 00:00:00Z',
      '2026-07-01T00:00:00',
      '2026-02-31T00:00:00Z',
      '2026-07-01t00:00:00z',
      '2026-07-01T24:00:00Z',
      '1751328000',
    ].map((text): Case => ({
      name: `last-sync ${JSON.stringify(text)} → rotate`,
      secret: secret(text),
      now: at(0),
      expected: { action: 'rotate', cause: 'last-sync-garbled', nextCheckInMs: THRESHOLD, forced: false },
    })),
    {
      name: 'last-sync with an offset is read as that instant (12:00+02:00 = 10:00Z)',
      secret: secret('2026-07-01T12:00:00+02:00'),
      now: at(10 * HOUR),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: 'last-sync with fractional seconds',
      secret: secret('2026-07-01T00:00:00.5Z'),
      now: at(THRESHOLD),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: 500, forced: false },
    },
    {
      name: 'last-sync 4 min ahead (clock skew) → keep, a little longer',
      secret: secret('2026-07-01T00:04:00Z'),
      now: at(0),
      expected: { action: 'keep', cause: 'fresh', nextCheckInMs: THRESHOLD + 240_000, forced: false },
    },
    {
      name: 'last-sync 1 h ahead → rotate (KIM would wait past the expiry)',
      secret: secret('2026-07-01T01:00:00Z'),
      now: at(0),
      expected: { action: 'rotate', cause: 'last-sync-in-future', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: 'no key config → rotate',
      secret: secret(T0, {}),
      now: at(0),
      expected: { action: 'rotate', cause: 'key-missing', nextCheckInMs: THRESHOLD, forced: false },
    },
    {
      name: 'an empty key config → rotate',
      secret: secret(T0, { config: '' }),
      now: at(0),
      expected: { action: 'rotate', cause: 'key-missing', nextCheckInMs: THRESHOLD, forced: false },
    },
  ];

  it.each(cases)('$name', ({ secret: s, annotations, now, options, expected }) => {
    const decision = rotationDecision({ secret: s, gardenerCluster: cluster(annotations), now, ...options });
    expect({
      action: decision.action,
      cause: decision.cause,
      nextCheckInMs: decision.nextCheckInMs,
      forced: decision.forced,
    }).toEqual(expected);
  });

  it.each([
    ['no Secret', undefined, {}, at(0), 'Secret kcp-system/kubeconfig-rt-1 does not exist'],
    [
      'no Secret, forced',
      undefined,
      { [FORCE]: 'true' },
      at(0),
      'Secret kcp-system/kubeconfig-rt-1 does not exist (rotation forced by annotation operator.kyma-project.io/force-kubeconfig-rotation on GardenerCluster kcp-system/rt-1)',
    ],
    [
      'forced',
      secret(T0),
      { [FORCE]: 'true' },
      at(0),
      'rotation forced by annotation operator.kyma-project.io/force-kubeconfig-rotation on GardenerCluster kcp-system/rt-1',
    ],
    [
      'last-sync missing',
      secret(null),
      {},
      at(0),
      'Secret kcp-system/kubeconfig-rt-1 has no annotation operator.kyma-project.io/last-sync',
    ],
    [
      'last-sync garbled',
      secret('yesterday'),
      {},
      at(0),
      'annotation operator.kyma-project.io/last-sync of Secret kcp-system/kubeconfig-rt-1 is not an RFC 3339 time: "yesterday"',
    ],
    [
      'last-sync in the future',
      secret('2026-07-01T01:00:00Z'),
      {},
      at(0),
      'annotation operator.kyma-project.io/last-sync of Secret kcp-system/kubeconfig-rt-1 is in the future: 2026-07-01T01:00:00Z (now 2026-07-01T00:00:00Z)',
    ],
    ['key missing', secret(T0, {}), {}, at(0), 'Secret kcp-system/kubeconfig-rt-1 has no key config'],
    [
      'due',
      secret(T0),
      {},
      at(THRESHOLD),
      'kubeconfig in Secret kcp-system/kubeconfig-rt-1 synced 2026-07-01T00:00:00Z, 13h40m48s ago: rotation is due after 13h40m48s (0.95 × rotation period 14h24m0s)',
    ],
    [
      'fresh',
      secret(T0),
      {},
      at(HOUR),
      'kubeconfig in Secret kcp-system/kubeconfig-rt-1 synced 2026-07-01T00:00:00Z, rotation due in 12h40m48s (0.95 × rotation period 14h24m0s)',
    ],
  ])('says why: %s', (_case, s, annotations, now, reason) => {
    expect(rotationDecision({ secret: s, gardenerCluster: cluster(annotations), now }).reason).toBe(reason);
  });
});

describe('gardenerClusterStatus', () => {
  const NOW = new Date('2026-07-01T12:34:56.789Z');
  const NOW_TEXT = '2026-07-01T12:34:56Z';

  it.each<[string, KubeconfigOutcome, string, string, string, string]>([
    ['created', { result: 'created' }, 'Ready', 'True', 'KubeconfigSecretCreated', 'Secret created successfully.'],
    [
      'kept (KIM writes Created then too)',
      { result: 'kept' },
      'Ready',
      'True',
      'KubeconfigSecretCreated',
      'Secret created successfully.',
    ],
    ['rotated', { result: 'rotated' }, 'Ready', 'True', 'KubeconfigSecretRotated', 'Secret rotated successfully.'],
    [
      'kubeconfig fetch failed',
      { result: 'failed', step: 'get-kubeconfig', error: 'shoots.core.gardener.cloud "c-1" not found' },
      'Error',
      'False',
      'FailedToGetKubeconfig',
      'Failed to get kubeconfig. Error: shoots.core.gardener.cloud "c-1" not found',
    ],
    [
      'Secret read failed',
      { result: 'failed', step: 'check-secret', error: 'boom' },
      'Error',
      'False',
      'FailedToCheckSecret',
      'Failed to get secret. Error: boom',
    ],
    [
      'Secret create failed',
      { result: 'failed', step: 'create-secret', error: 'boom' },
      'Error',
      'False',
      'ConditionReasonFailedToCreateSecret',
      'Failed to create secret. Error: boom',
    ],
    [
      'Secret update failed',
      { result: 'failed', step: 'update-secret', error: 'boom' },
      'Error',
      'False',
      'FailedToUpdateSecret',
      'Failed to rotate secret. Error: boom',
    ],
    [
      'Secret delete failed',
      { result: 'failed', step: 'delete-secret', error: 'boom' },
      'Error',
      'False',
      'ConditionReasonFailedToDeleteSecret',
      'Unknown condition Error: boom',
    ],
  ])('%s', (_case, outcome, state, status, reason, message) => {
    expect(gardenerClusterStatus(outcome, NOW)).toEqual({
      state,
      conditions: [{ type: 'KubeconfigManagement', status, reason, message, lastTransitionTime: NOW_TEXT }],
    });
  });

  it('keeps lastTransitionTime when nothing changed, so a quiet pass needs no write', () => {
    const previous = gardenerClusterStatus({ result: 'created' }, new Date(T0));
    expect(gardenerClusterStatus({ result: 'kept' }, NOW, previous)).toEqual(previous);
  });

  it.each<[string, KubeconfigOutcome]>([
    ['reason changes (Created → Rotated)', { result: 'rotated' }],
    ['status changes (Ready → Error)', { result: 'failed', step: 'get-kubeconfig', error: 'x' }],
  ])('takes a new lastTransitionTime when the %s', (_case, outcome) => {
    const previous = gardenerClusterStatus({ result: 'created' }, new Date(T0));
    expect(gardenerClusterStatus(outcome, NOW, previous).conditions[0]?.lastTransitionTime).toBe(NOW_TEXT);
  });

  it('replaces KubeconfigManagement in place and keeps condition types it does not own; ignores garbage', () => {
    const previous = {
      state: 'Error',
      conditions: [
        { type: 'Other', status: 'True', reason: 'Mine', message: 'm', lastTransitionTime: T0 },
        {
          type: 'KubeconfigManagement',
          status: 'False',
          reason: 'FailedToGetKubeconfig',
          message: 'x',
          lastTransitionTime: T0,
        },
        'garbage',
      ],
    };
    expect(gardenerClusterStatus({ result: 'rotated' }, NOW, previous)).toEqual({
      state: 'Ready',
      conditions: [
        { type: 'Other', status: 'True', reason: 'Mine', message: 'm', lastTransitionTime: T0 },
        {
          type: 'KubeconfigManagement',
          status: 'True',
          reason: 'KubeconfigSecretRotated',
          message: 'Secret rotated successfully.',
          lastTransitionTime: NOW_TEXT,
        },
      ],
    });
    expect(gardenerClusterStatus({ result: 'created' }, NOW, 'not a status').conditions).toHaveLength(1);
  });
});

describe('kubeconfigExpirationSample', () => {
  const labelled = (lastSync: string): SecretLike => ({
    metadata: {
      labels: { 'kyma-project.io/runtime-id': 'rt-1', 'kyma-project.io/shoot-name': 'c-12345' },
      annotations: { [LAST_SYNC]: lastSync },
    },
  });
  const epoch = (text: string): number => Date.parse(text) / 1000;

  it.each([
    ['KIM defaults', {}, '2026-07-02T00:00:00Z', '51840', '86400'],
    ["KIM's Helm chart (100m)", { expirationSeconds: 6_000 }, '2026-07-01T01:40:00Z', '3600', '6000'],
    [
      '12 days: Go prints 1036800 as 1.0368E+06',
      { expirationSeconds: 1_036_800 },
      '2026-07-13T00:00:00Z',
      '622080',
      '1.0368E+06',
    ],
  ])("is KIM's sample: %s", (_case, options, expiry, rotationDuration, expirationDuration) => {
    expect(kubeconfigExpirationSample(labelled(T0), options)).toEqual({
      labels: {
        runtimeId: 'rt-1',
        shoot: 'c-12345',
        expires: String(epoch(expiry)),
        rotationDuration,
        expirationDuration,
      },
      value: epoch(expiry),
    });
  });

  it('is undefined without a runtime ID or a readable last-sync (KIM sets no sample)', () => {
    expect(kubeconfigExpirationSample({ metadata: { annotations: { [LAST_SYNC]: T0 } } })).toBeUndefined();
    expect(kubeconfigExpirationSample(labelled('soon'))).toBeUndefined();
  });
});

describe('helpers', () => {
  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m0s'],
    [THRESHOLD, '13h40m48s'],
    [51_840_000, '14h24m0s'],
    [-90_000, '-1m30s'],
  ])('goDuration(%d) = %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });

  it.each([
    [0, '0'],
    [51_840, '51840'],
    [999_999, '999999'],
    [1_000_000, '1E+06'],
    [1_036_800, '1.0368E+06'],
    [0.5, '0.5'],
    [0.00001, '1E-05'],
  ])('goFormatFloatG(%d) = %s', (x, text) => {
    expect(goFormatFloatG(x)).toBe(text);
  });

  it.each([
    ['2026-07-01T00:00:00Z', T0_MS],
    ['2026-07-01T02:30:00+02:30', T0_MS],
    ['2026-06-30T23:00:00-01:00', T0_MS],
    ['2026-07-01T00:00:00.123456Z', T0_MS + 123],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2100-02-29T00:00:00Z', undefined],
    ['2026-00-10T00:00:00Z', undefined],
    ['2026-07-01T00:60:00Z', undefined],
    ['2026-07-01T00:00:00+24:00', undefined],
  ])('parseRfc3339(%s)', (text, expected) => {
    expect(parseRfc3339(text)).toBe(expected);
  });
});
