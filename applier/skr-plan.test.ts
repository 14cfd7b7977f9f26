import { describe, expect, it } from 'vitest';
import {
  APPLIED_TREE_ANNOTATION,
  LABEL_OIDC_MANAGED_BY,
  LABEL_RECONCILER_MANAGED_BY,
  MANAGED_BY_KIM,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import type { Shoot } from '../model/shoot.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import {
  removedBindings,
  removedOpenIdConnects,
  skrDue,
  skrMayBeDue,
  skrObjectProblem,
  skrSteps,
  withLiveFields,
  type SkrCandidate,
  type SkrObject,
} from './skr-plan.js';

const KIM = { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM };

function binding(
  name: string,
  subjects: { kind: string; name: string }[],
  options: { labels?: Record<string, string>; role?: string } = {},
): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: options.labels ?? KIM },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: options.role ?? 'cluster-admin' },
    subjects: subjects.map((s) => ({ apiGroup: 'rbac.authorization.k8s.io', ...s })),
  };
}

function oidc(name: string, labels: Record<string, string> = { [LABEL_OIDC_MANAGED_BY]: MANAGED_BY_KIM }): KubeObject {
  return {
    apiVersion: 'authentication.gardener.cloud/v1alpha1',
    kind: 'OpenIDConnect',
    metadata: { name, labels },
    spec: { issuerURL: 'https://issuer.example.com', clientID: 'c', usernameClaim: 'sub' },
  };
}

const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } };
const provisioningInfo: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system', labels: KIM },
  data: { details: 'region: eu-west-1\nworkerPools:\n  kyma:\n    name: cpu-worker-0\n' },
};

/** A live Shoot reconciled (Succeeded at its generation) from `applied`, its SKR last configured from `skr`. */
function live(applied: string | undefined, skr?: string, change: (shoot: Shoot) => void = () => {}): Shoot {
  const shoot = testShoot();
  shoot.metadata.generation = 2;
  shoot.metadata.annotations = {
    ...(applied !== undefined && { [APPLIED_TREE_ANNOTATION]: applied }),
    ...(skr !== undefined && { [SKR_APPLIED_TREE_ANNOTATION]: skr }),
  };
  shoot.status = {
    observedGeneration: 2,
    lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, lastUpdateTime: '2026-07-01T10:00:00Z' },
  };
  change(shoot);
  return shoot;
}

const candidate = (over: Partial<SkrCandidate>): SkrCandidate => ({
  shoot: 'c-1',
  tree: 't2',
  live: live('t2'),
  hasSkr: true,
  written: 'nothing',
  ...over,
});

describe('skrDue', () => {
  it.each<[string, Partial<SkrCandidate>, boolean]>([
    ['reconciled from the tree, SKR never configured', {}, true],
    ['reconciled from the tree, SKR configured from an older tree', { live: live('t2', 't1') }, true],
    ['SKR already configured from the tree', { live: live('t2', 't2') }, false],
    ['the folder has no skr/ (rendered before kimops wrote one): left alone', { hasSkr: false }, false],
    ['not live', { live: undefined }, false],
    ['no tree', { tree: undefined }, false],
    ['applied from an older tree (the new one not yet)', { live: live('t1') }, false],
    ['only markers moved to the tree in this sync', { live: live('t1'), written: 'markers' }, true],
    ['its spec written in this sync: Gardener reconciles it first', { written: 'shoot' }, false],
    [
      'Gardener has not started on its newest generation',
      { live: live('t2', undefined, (s) => (s.metadata.generation = 3)) },
      false,
    ],
    [
      'reconciling',
      {
        live: live('t2', undefined, (s) => {
          if (s.status?.lastOperation) s.status.lastOperation.state = 'Processing';
        }),
      },
      false,
    ],
    [
      'failed',
      {
        live: live('t2', undefined, (s) => {
          if (s.status?.lastOperation) s.status.lastOperation.state = 'Failed';
        }),
      },
      false,
    ],
    ['being deleted', { live: live('t2', undefined, (s) => (s.metadata.deletionTimestamp = 'x')) }, false],
    [
      'hibernated (its API server is down)',
      { live: live('t2', undefined, (s) => (s.spec.hibernation = { enabled: true })) },
      false,
    ],
    ['woken up again', { live: live('t2', undefined, (s) => (s.spec.hibernation = { enabled: false })) }, true],
  ])('%s → %s', (_what, over, due) => {
    expect(skrDue(candidate(over))).toBe(due);
  });
});

describe('skrMayBeDue (a watching applier’s cue to sync now)', () => {
  it('is true once a Shoot applied from some tree has reconciled and its SKR is not from that tree', () => {
    expect(skrMayBeDue(live('t2'))).toBe(true);
    expect(skrMayBeDue(live('t2', 't1'))).toBe(true);
    expect(skrMayBeDue(live('t2', 't2'))).toBe(false);
    expect(skrMayBeDue(live(undefined))).toBe(false);
    expect(skrMayBeDue(live('t2', undefined, (s) => (s.metadata.generation = 3)))).toBe(false);
  });
});

describe('skrSteps', () => {
  const objects = (...list: [string, KubeObject][]): SkrObject[] =>
    list.map(([file, object]) => ({ path: `shoots/c-1/skr/${file}`, object }));

  it('runs KIM’s order — Namespace, kyma-provisioning-info, OpenIDConnects, administrators — each sorted by path', () => {
    const steps = skrSteps(
      objects(
        ['openidconnect-kyma-oidc-1.yaml', oidc('kyma-oidc-1')],
        ['clusterrolebinding-admin-b.yaml', binding('admin-b', [{ kind: 'User', name: 'b' }])],
        ['namespace-kyma-system.yaml', namespace],
        ['openidconnect-kyma-oidc-0.yaml', oidc('kyma-oidc-0')],
        ['configmap-kyma-provisioning-info.yaml', provisioningInfo],
        ['clusterrolebinding-admin-a.yaml', binding('admin-a', [{ kind: 'User', name: 'a' }])],
      ),
    );
    expect(steps.map((s) => [s.step, s.apply.map((o) => o.metadata.name), s.prune?.labelSelector])).toEqual([
      ['namespace', ['kyma-system'], undefined],
      ['provisioning-info', ['kyma-provisioning-info'], undefined],
      ['oidc', ['kyma-oidc-0', 'kyma-oidc-1'], 'operator.kyma-project.io/managed-by=infrastructure-manager'],
      ['administrators', ['admin-a', 'admin-b'], 'reconciler.kyma-project.io/managed-by=infrastructure-manager'],
    ]);
  });

  it('still prunes OpenIDConnects and bindings when Git holds none of them (all administrators or OIDC configs gone)', () => {
    const steps = skrSteps(objects(['namespace-kyma-system.yaml', namespace]));
    expect(steps.map((s) => [s.step, s.apply.length])).toEqual([
      ['namespace', 1],
      ['oidc', 0],
      ['administrators', 0],
    ]);
    const listed = [binding('admin-x', [{ kind: 'User', name: 'x' }])];
    expect(steps[2]?.prune?.removed(listed)).toEqual(listed);
  });

  it('prunes against the names Git holds in that step', () => {
    const [, , , administrators] = skrSteps(
      objects(
        ['namespace-kyma-system.yaml', namespace],
        ['configmap-kyma-provisioning-info.yaml', provisioningInfo],
        ['clusterrolebinding-admin-a.yaml', binding('admin-a', [{ kind: 'User', name: 'a' }])],
      ),
    );
    const kept = binding('admin-a', [{ kind: 'User', name: 'a' }]);
    const gone = binding('admin-b', [{ kind: 'User', name: 'b' }]);
    expect(administrators?.prune?.removed([kept, gone])).toEqual([gone]);
  });
});

describe('removedBindings (KIM’s getRemoved with kimops’s stable names)', () => {
  const desired = new Set(['admin-1a2b3c4d5e']);
  it.each<[string, KubeObject, boolean]>([
    ['a removed administrator’s binding', binding('admin-9f9f9f9f9f', [{ kind: 'User', name: 'gone@x' }]), true],
    ['the binding Git holds', binding('admin-1a2b3c4d5e', [{ kind: 'User', name: 'a@x' }]), false],
    [
      'KIM’s random-named binding of an administrator still there (kimops’s own is applied first)',
      binding('admin-k8x2q', [{ kind: 'User', name: 'a@x' }]),
      true,
    ],
    [
      'a binding without KIM’s label',
      binding('someone-else', [{ kind: 'User', name: 'gone@x' }], { labels: { team: 'a' } }),
      false,
    ],
    [
      'a binding of another ClusterRole',
      binding('admin-v', [{ kind: 'User', name: 'gone@x' }], { role: 'view' }),
      false,
    ],
    ['a binding of groups only', binding('admin-g', [{ kind: 'Group', name: 'ops' }]), false],
    ['a binding of a ServiceAccount only', binding('admin-s', [{ kind: 'ServiceAccount', name: 'robot' }]), false],
  ])('%s → removed: %s', (_what, listed, removed) => {
    expect(removedBindings([listed], desired)).toEqual(removed ? [listed] : []);
  });
});

describe('removedOpenIdConnects', () => {
  it('removes KIM’s labelled OpenIDConnects Git does not hold, and nothing unlabelled', () => {
    const kept = oidc('kyma-oidc-0');
    const gone = oidc('kyma-oidc-1');
    const foreign = oidc('customer-oidc', {});
    expect(removedOpenIdConnects([kept, gone, foreign], new Set(['kyma-oidc-0']))).toEqual([gone]);
  });
});

describe('skrObjectProblem', () => {
  it('accepts what the generator writes', () => {
    for (const object of [
      namespace,
      provisioningInfo,
      oidc('kyma-oidc-0'),
      binding('admin-a', [{ kind: 'User', name: 'a' }]),
    ])
      expect(skrObjectProblem(object)).toBeUndefined();
  });

  it('refuses an OpenIDConnect without KIM’s label: kimops could never remove it', () => {
    expect(skrObjectProblem(oidc('kyma-oidc-0', {}))).toEqual({
      field: 'metadata.labels',
      detail: expect.stringContaining(
        'must carry operator.kyma-project.io/managed-by: infrastructure-manager',
      ) as string,
    });
  });
});

describe('withLiveFields', () => {
  it('adds the Seed’s region and the last reconcile to kyma-provisioning-info’s details', () => {
    const [filled] = withLiveFields([provisioningInfo], {
      seedRegion: 'eu-west-1',
      lastReconcileTime: '2026-07-01T10:00:00Z',
    });
    const details = (filled?.data as Record<string, string>).details;
    expect(details).toContain('seedRegion: eu-west-1');
    expect(details).toContain('lastReconcileTime: "2026-07-01T10:00:00Z"');
    expect(details).toContain('region: eu-west-1');
    // Git's object is left as it was.
    expect((provisioningInfo.data as Record<string, string>).details).not.toContain('seedRegion');
  });
});
