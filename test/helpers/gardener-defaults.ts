// What gardener-apiserver adds to a Shoot kimops created, as read back from the test plane's gardener-apiserver
// (defaulting and admission; test/integration/adopt-defaults.test.ts creates the example Shoots there and
// compares): none of it is in main's manifest, none of it is a change kimops may propose or correct (ADR 0009).
import type { Shoot } from '../../model/shoot.js';

type Json = Record<string, unknown>;

/** `defaults` filled into `target` where `target` sets nothing; what it sets stays. */
function fill(target: Json, defaults: Json): void {
  for (const [key, value] of Object.entries(defaults)) {
    const current = target[key];
    if (current === undefined) target[key] = structuredClone(value);
    else if (isObject(current) && isObject(value)) fill(current, value);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `shoot` as the Garden serves it after the create: server metadata, defaults, an empty status. */
export function withGardenerDefaults(shoot: Shoot): Shoot {
  const live = structuredClone(shoot) as Shoot & { status?: unknown };
  fill(live.metadata as unknown as Json, {
    uid: 'c7fff7b3-350a-4aeb-9114-9094b8646c7b',
    resourceVersion: '773',
    generation: 1,
    creationTimestamp: '2026-12-01T21:57:23Z',
    annotations: {
      'gardener.cloud/created-by': 'garden',
      'shoot.gardener.cloud/tasks': 'deployInfrastructure,deployDNSRecordInternal,deployDNSRecordExternal',
    },
    labels: {
      'extensions.extensions.gardener.cloud/shoot-dns-service': 'true',
      'networking.extensions.gardener.cloud/calico': 'true',
      [`provider.extensions.gardener.cloud/${shoot.spec.provider.type}`]: 'true',
    },
    managedFields: [{ manager: 'kimops', operation: 'Update', fieldsV1: { 'f:spec': {} } }],
  });
  fill(live.spec as unknown as Json, {
    kubernetes: {
      kubeAPIServer: {
        defaultNotReadyTolerationSeconds: 300,
        defaultUnreachableTolerationSeconds: 300,
        encryptionConfig: { provider: { type: 'aescbc' } },
        eventTTL: '1h0m0s',
        logging: { verbosity: 2 },
        requests: { maxNonMutatingInflight: 400, maxMutatingInflight: 200 },
      },
      kubeControllerManager: { nodeCIDRMaskSize: 24, nodeMonitorGracePeriod: '40s' },
      kubeProxy: { mode: 'IPTables', enabled: true },
      kubeScheduler: { profile: 'balanced' },
      kubelet: {
        failSwapOn: true,
        imageGCHighThresholdPercent: 50,
        imageGCLowThresholdPercent: 40,
        imageMaximumGCAge: '0s',
        imageMinimumGCAge: '2m0s',
        kubeReserved: { cpu: '80m', memory: '1Gi', pid: '20k' },
        serializeImagePulls: true,
      },
      verticalPodAutoscaler: { enabled: true, evictAfterOOMThreshold: '10m0s', updaterInterval: '1m0s' },
    },
    maintenance: {
      autoRotation: { credentials: { etcdEncryptionKey: { rotationPeriod: '672h0m0s' } } },
      timeWindow: { begin: '000000+0000', end: '010000+0000' },
    },
    networking: { ipFamilies: ['IPv4'] },
    schedulerName: 'default-scheduler',
    systemComponents: { coreDNS: { autoscaling: { mode: 'horizontal' } } },
  });
  for (const provider of live.spec.dns?.providers ?? []) fill(provider as Json, { secretName: 'dns-secret' });
  for (const worker of live.spec.provider.workers)
    fill(worker as unknown as Json, {
      cri: { name: 'containerd' },
      machine: { architecture: 'amd64' },
      systemComponents: { allow: true },
      updateStrategy: 'AutoRollingUpdate',
    });
  live.status = { gardener: { id: '', name: '', version: '' }, hibernated: false, technicalID: '', uid: '' };
  return live;
}
