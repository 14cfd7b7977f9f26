import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../model/kube-object.js';
import { testShoot, worker } from '../test/helpers/test-shoot.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import type { DesiredShoot, DesiredState } from './desired.js';
import { type PlanInput, planSync, rememberedFolders } from './plan.js';
import {
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  COMPANION_OF_LABEL,
} from '../model/contract.js';
import { massDeletionApproval } from '../rules/mass-deletion.js';
import { ConfigError } from '../model/errors.js';
import { LEADER_ANNOTATION, withLeader } from '../rules/leader.js';

const COMMIT = 'c0ffee';
const POLICY = { maxShoots: 2, maxPercent: 50 };

function shoot(name: string, edit: (s: Shoot) => void = () => {}): Shoot {
  const s = testShoot();
  s.metadata.name = name;
  edit(s);
  return s;
}
const configMap = (name: string, data = { k: 'v' }): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'garden-kyma-dev' },
  data,
});
const want = (s: Shoot, companions: ConfigMap[] = []): DesiredShoot => ({
  name: s.metadata.name,
  path: `shoots/${s.metadata.name}/shoot.yaml`,
  shoot: s,
  companions: companions.map((object) => ({
    path: `shoots/${s.metadata.name}/configmap-${object.metadata.name}.yaml`,
    object,
  })),
  skr: [],
});

/** What the API server holds after kimops applied `s` at an earlier commit: label, annotation, defaults, status, managedFields. */
function applied<T extends KubeObject>(
  s: T,
  extra: (o: T & Record<string, unknown>) => void = () => {},
  companionOf?: string,
): T {
  const live = structuredClone(s) as T & Record<string, unknown>;
  live.metadata.labels = {
    ...live.metadata.labels,
    [OWNERSHIP_LABEL]: OWNERSHIP_VALUE,
    ...(companionOf ? { [COMPANION_OF_LABEL]: companionOf } : {}),
  };
  live.metadata.annotations = {
    ...live.metadata.annotations,
    [APPLIED_COMMIT_ANNOTATION]: 'old-commit',
    'gardener.cloud/created-by': 'someone',
  };
  Object.assign(live.metadata, {
    uid: 'u-1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
  });
  live.metadata.managedFields = [{ manager: 'gardener-apiserver', operation: 'Update', fieldsV1: { 'f:spec': {} } }];
  if (live.kind === 'Shoot') {
    const sh = live as unknown as Shoot;
    sh.status = { observedGeneration: 3, lastOperation: { type: 'Reconcile', state: 'Succeeded' } };
    // Gardener's defaults: fields the manifest does not set.
    sh.spec.provider.workers.forEach((w) =>
      Object.assign(w, {
        cri: { name: 'containerd' },
        maxSurge: 1,
        maxUnavailable: 0,
        machine: { ...w.machine, architecture: 'amd64' },
      }),
    );
    sh.spec.extensions?.forEach((e) => Object.assign(e, { disabled: false }));
    sh.spec.systemComponents = { coreDNS: { autoscaling: { mode: 'horizontal' } } };
    sh.spec.kubernetes.kubeProxy = { mode: 'IPTables' };
  }
  extra(live);
  return live;
}

function plan(desired: DesiredShoot[], live: Shoot[], more: Partial<PlanInput> = {}) {
  const state: DesiredState = { shoots: desired, problems: [] };
  return planSync({ desired: state, live, liveCompanions: [], commit: COMMIT, massDeletion: POLICY, ...more });
}

describe('planSync', () => {
  it('plans nothing for a Shoot whose live object only adds status, server metadata and Gardener defaults', () => {
    const result = plan([want(shoot('a'))], [applied(shoot('a'))]);
    expect(result.entries).toMatchObject([{ shoot: 'a', action: 'unchanged', reasons: [] }]);
    expect(result.counts).toMatchObject({ unchanged: 1, update: 0, create: 0, delete: 0 });
  });

  it('plans nothing, and sees no drift, for a Shoot as gardener-apiserver serves it after the create (ipFamilies, updateStrategy, … defaulted)', () => {
    const served = withGardenerDefaults(applied(shoot('a')));
    const result = plan([want(shoot('a'))], [served]);
    expect(result.entries).toMatchObject([{ shoot: 'a', action: 'unchanged', reasons: [] }]);
    // The defaults the live rules keep (rules/live-rules.ts) are the live values, not something main changed.
    expect(result.entries[0]?.kept ?? []).toEqual([]);
  });

  it('plans an update for a value main sets that the live Shoot moved away from, beside those defaults', () => {
    const served = withGardenerDefaults(applied(shoot('a')));
    worker(served, 'b').maximum = 9;
    const entry = plan([want(shoot('a'))], [served]).entries[0];
    expect(entry?.action).toBe('update');
    expect(entry?.object.changes.map((c) => c.path)).toEqual(['spec.provider.workers[b].maximum']);
  });

  it.each<[string, (s: Shoot) => void, string[]]>([
    [
      'a worker maximum',
      (s) => {
        worker(s, 'b').maximum = 9;
      },
      ['spec.provider.workers[b].maximum'],
    ],
    [
      'a new worker',
      (s) => {
        s.spec.provider.workers.push({ ...worker(s, 'a'), name: 'c' });
      },
      ['spec.provider.workers[c]'],
    ],
    [
      'a new zone',
      (s) => {
        worker(s, 'a').zones = ['z1', 'z2', 'z3'];
      },
      ['spec.provider.workers[a].zones[z3]'],
    ],
    [
      'an extension toggled',
      (s) => {
        s.spec.extensions = [...(s.spec.extensions ?? []), { type: 'shoot-cert-service' }];
      },
      ['spec.extensions[shoot-cert-service]'],
    ],
    [
      'an extension set to the value Gardener defaulted',
      (s) => {
        s.spec.extensions?.forEach((e) => {
          e.disabled = false;
        });
      },
      [],
    ],
    [
      'the kubernetes version',
      (s) => {
        s.spec.kubernetes.version = '1.33.3';
      },
      ['spec.kubernetes.version'],
    ],
    [
      'a label',
      (s) => {
        s.metadata.labels = { ...s.metadata.labels, team: 'x' };
      },
      ['metadata.labels.team'],
    ],
  ])('plans an update for %s, naming the field paths', (_what, edit, paths) => {
    const result = plan([want(shoot('a', edit))], [applied(shoot('a'))]);
    const entry = result.entries[0];
    expect(entry?.action).toBe(paths.length > 0 ? 'update' : 'unchanged');
    expect(entry?.object.changes.map((c) => c.path)).toEqual(paths);
    expect(entry?.reasons).toHaveLength(paths.length);
  });

  it('sees a field removed from Git when kimops applied it before (managedFields), and not otherwise', () => {
    const withHibernation = shoot('a', (s) => {
      s.spec.hibernation = { enabled: true };
    });
    const ownedBy = (manager: string) =>
      applied(withHibernation, (live) => {
        (live.metadata.managedFields as unknown[]).push({
          manager,
          operation: 'Apply',
          fieldsV1: { 'f:spec': { 'f:hibernation': { 'f:enabled': {} } } },
        });
      });
    expect(plan([want(shoot('a'))], [ownedBy('kimops')]).entries[0]).toMatchObject({
      action: 'update',
      object: { changes: [{ path: 'spec.hibernation', kind: 'removed' }] },
    });
    expect(plan([want(shoot('a'))], [ownedBy('someone-else')]).entries[0]?.action).toBe('unchanged');
    expect(plan([want(shoot('a'))], [ownedBy('kim')], { fieldManager: 'kim' }).entries[0]?.action).toBe('update');
  });

  it('reads fieldsV1 as the API serves it and as the JSON text compactShoot keeps; text that is no JSON object claims nothing', () => {
    const withHibernation = shoot('a', (s) => {
      s.spec.hibernation = { enabled: true };
    });
    const ownedAs = (fieldsV1: unknown) =>
      applied(withHibernation, (live) => {
        (live.metadata.managedFields as unknown[]).push({ manager: 'kimops', operation: 'Apply', fieldsV1 });
      });
    const owned = { 'f:spec': { 'f:hibernation': { 'f:enabled': {} } } };
    const object = plan([want(shoot('a'))], [ownedAs(owned)]).entries[0];
    expect(object).toMatchObject({
      action: 'update',
      object: { changes: [{ path: 'spec.hibernation', kind: 'removed' }] },
    });
    expect(plan([want(shoot('a'))], [ownedAs(JSON.stringify(owned))]).entries[0]?.object.changes).toEqual(
      object?.object.changes,
    );
    expect(plan([want(shoot('a'))], [ownedAs('{"f:spec": ')]).entries[0]?.action).toBe('unchanged');
    expect(plan([want(shoot('a'))], [ownedAs('[]')]).entries[0]?.action).toBe('unchanged');
  });

  it('sees a worker removed from Git only when kimops applied that worker (merge-keyed list)', () => {
    const live = (manager: string) =>
      applied(shoot('a'), (l) => {
        (l.metadata.managedFields as unknown[]).push({
          manager,
          operation: 'Apply',
          fieldsV1: { 'f:spec': { 'f:provider': { 'f:workers': { 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } } } },
        });
      });
    const withoutB = shoot('a', (s) => {
      s.spec.provider.workers = s.spec.provider.workers.filter((w) => w.name !== 'b');
    });
    expect(plan([want(withoutB)], [live('kimops')]).entries[0]?.object.changes.map((c) => c.path)).toEqual([
      'spec.provider.workers[b]',
    ]);
    expect(plan([want(withoutB)], [live('other')]).entries[0]?.action).toBe('unchanged');
  });

  it('sees an extension removed from Git (atomic list: the apply replaces it whole)', () => {
    const fewer = shoot('a', (s) => {
      s.spec.extensions = s.spec.extensions?.slice(0, 1);
    });
    expect(plan([want(fewer)], [applied(shoot('a'))]).entries[0]?.object.changes.map((c) => c.path)).toEqual([
      'spec.extensions[shoot-dns-service]',
    ]);
  });

  it('never compares the applied-commit annotation, but writes it with every write', () => {
    const result = plan(
      [
        want(shoot('a')),
        want(
          shoot('b', (s) => {
            s.spec.kubernetes.version = '1.33.3';
          }),
        ),
      ],
      [applied(shoot('a')), applied(shoot('b'))],
    );
    expect(result.entries.map((e) => e.action)).toEqual(['unchanged', 'update']);
    expect(result.entries[1]?.object.manifest?.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION]).toBe(COMMIT);
    expect(result.entries[1]?.object.manifest?.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
  });

  it('holds main against the live Shoot: a higher live version is kept and said, nothing written for it', () => {
    const result = plan([want(shoot('a'))], [applied(shoot('a'), (l) => (l.spec.kubernetes.version = '1.33.3'))]);
    expect(result.entries[0]).toMatchObject({ action: 'unchanged', kept: [{ path: 'spec.kubernetes.version' }] });
    const scaled = plan(
      [want(shoot('a', (s) => (worker(s, 'b').maximum = 9)))],
      [applied(shoot('a'), (l) => (l.spec.kubernetes.version = '1.33.3'))],
    );
    expect(scaled.entries[0]?.action).toBe('update');
    expect((scaled.entries[0]?.object.manifest as Shoot | undefined)?.spec).toMatchObject({
      kubernetes: { version: '1.33.3' },
    });
  });

  it('moves the markers alone, once, when main changed the folder but nothing of the Shoot is written', () => {
    const live = applied(
      shoot('a'),
      (l) => (l.metadata.annotations = { ...l.metadata.annotations, [APPLIED_TREE_ANNOTATION]: 'tree-1' }),
    );
    const moved = plan([want(shoot('a'))], [live], { trees: new Map([['a', 'tree-2']]) });
    expect(moved.entries[0]).toMatchObject({
      action: 'unchanged',
      tree: 'tree-2',
      appliedTree: 'tree-1',
      moveMarkers: { [APPLIED_COMMIT_ANNOTATION]: COMMIT, [APPLIED_TREE_ANNOTATION]: 'tree-2' },
    });
    const current = plan([want(shoot('a'))], [live], { trees: new Map([['a', 'tree-1']]) });
    expect(current.entries[0]?.moveMarkers).toBeUndefined();
    // A write carries the markers itself.
    const written = plan([want(shoot('a', (s) => (worker(s, 'b').maximum = 9)))], [live], {
      trees: new Map([['a', 'tree-2']]),
    });
    expect(written.entries[0]?.moveMarkers).toBeUndefined();
    expect(written.entries[0]?.object.manifest?.metadata.annotations).toMatchObject({
      [APPLIED_TREE_ANNOTATION]: 'tree-2',
    });
  });

  it('reuses an unchanged entry only while its folder tree and live resourceVersion are the same', () => {
    const memo = new Map();
    const live = applied(
      shoot('a'),
      (l) => (l.metadata.annotations = { ...l.metadata.annotations, [APPLIED_TREE_ANNOTATION]: 'tree-1' }),
    );
    const trees = new Map([['a', 'tree-1']]);
    const first = plan([want(shoot('a'))], [live], { trees, memo });
    expect(first.entries[0]?.action).toBe('unchanged');
    expect(plan([want(shoot('a'))], [live], { trees, memo }).entries[0]).toBe(first.entries[0]);
    // Someone changed the live Shoot: a new resourceVersion, planned afresh (and found drifted from main).
    const edited = structuredClone(live);
    edited.metadata.resourceVersion = '43';
    worker(edited, 'b').maximum = 9;
    const again = plan([want(shoot('a'))], [edited], { trees, memo });
    expect(again.entries[0]).not.toBe(first.entries[0]);
    expect(again.entries[0]?.action).toBe('update');
  });

  it('takes a folder the caller did not read from the memo (rememberedFolders), never as a deletion', () => {
    const memo = new Map();
    const live = applied(
      shoot('a'),
      (l) => (l.metadata.annotations = { ...l.metadata.annotations, [APPLIED_TREE_ANNOTATION]: 'tree-1' }),
    );
    const trees = new Map([['a', 'tree-1']]);
    const first = plan([want(shoot('a'))], [live], { trees, memo });
    expect(rememberedFolders(memo, trees, [live], [])).toEqual(new Set(['a']));
    // Not read: the remembered entry stands for the folder, nothing is deleted.
    const unread = plan([], [live], { trees, memo });
    expect(unread.entries).toEqual([first.entries[0]]);
    expect(unread.counts).toMatchObject({ unchanged: 1, delete: 0 });
    expect(memo.size).toBe(1);
    // A new tree or a moved live Shoot: not remembered, so the caller reads the folder.
    expect(rememberedFolders(memo, new Map([['a', 'tree-2']]), [live], [])).toEqual(new Set());
    expect(
      rememberedFolders(memo, trees, [{ ...live, metadata: { ...live.metadata, resourceVersion: '99' } }], []),
    ).toEqual(new Set());
    expect(rememberedFolders(memo, trees, [live], [], 'kim')).toEqual(new Set());
  });

  it('reads a mass-deletion approval from the commit message trailer, the largest one if several', () => {
    expect(massDeletionApproval('Approve\n\nKimops-Allow-Mass-Deletion: 25\n')).toBe(25);
    expect(massDeletionApproval('x\n\nkimops-allow-mass-deletion:3\nKimops-Allow-Mass-Deletion: 7\n')).toBe(7);
    expect(massDeletionApproval('Kimops-Allow-Mass-Deletion: lots\n')).toBeUndefined();
    expect(massDeletionApproval('Merge pull request #4\n')).toBeUndefined();
  });

  it("refuses a mass deletion with the applier's own words: how to approve it in the commit", () => {
    const live = ['a', 'b', 'c'].map((n) => applied(shoot(n)));
    const refused = plan([], live);
    expect(refused.refused?.message).toContain('refusing to delete 3 of 3 shoots');
    expect(refused.refused?.message).toContain('"Kimops-Allow-Mass-Deletion: 3"');
    expect(plan([], live, { allowMassDeletion: 3 }).refused).toBeUndefined();
  });

  it('blocks a manifest that cannot be held against the live Shoot, naming the file', () => {
    const broken = shoot('a', (s) => delete (s.spec as Partial<Shoot['spec']>).provider);
    const result = plan([want(broken)], [applied(shoot('a'))]);
    expect(result.entries[0]).toMatchObject({
      action: 'blocked',
      reasons: [expect.stringContaining('shoots/a/shoot.yaml cannot be held against the live Shoot') as string],
    });
  });

  it('creates what is not live, deletes what is owned and gone from Git, ignores unowned Shoots it does not want', () => {
    const unowned = structuredClone(shoot('kim-only'));
    const result = plan([want(shoot('new'))], [applied(shoot('gone')), unowned]);
    expect(result.entries.map((e) => [e.shoot, e.action])).toEqual([
      ['gone', 'delete'],
      ['new', 'create'],
    ]);
    expect(result.entries[1]?.object.manifest?.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
  });

  it('takes over a desired Shoot that is live without the ownership label, even when nothing else differs', () => {
    const kimShoot = applied(shoot('a'), (l) => {
      delete l.metadata.labels?.[OWNERSHIP_LABEL];
    });
    const entry = plan([want(shoot('a'))], [kimShoot]).entries[0];
    expect(entry?.action).toBe('take-over');
    expect(entry?.object.changes.map((c) => c.path)).toEqual([`metadata.labels["${OWNERSHIP_LABEL}"]`]);
    expect(entry?.reasons[0]).toMatch(/takes it over as field manager kimops/);
  });

  it("says a take-over's companion create may take over KIM's unlabelled ConfigMap, and a plain create stays a create", () => {
    const kimShoot = applied(shoot('a'), (l) => {
      delete l.metadata.labels?.[OWNERSHIP_LABEL];
    });
    const takeOver = plan([want(shoot('a'), [configMap('structured-auth-config-a')])], [kimShoot]).entries[0];
    expect(takeOver?.reasons).toContain(
      "ConfigMap structured-auth-config-a: create, or take over the unlabelled one of that name (KIM's)",
    );
    const create = plan([want(shoot('b'), [configMap('structured-auth-config-b')])], []).entries[0];
    expect(create?.reasons).toContain('ConfigMap structured-auth-config-b: create');
  });

  it('holds back a Shoot whose files have problems: neither applied nor deleted', () => {
    const state: DesiredState = {
      shoots: [],
      problems: [{ shoot: 'a', error: new ConfigError('shoots/a/shoot.yaml', '', 'broken') }],
    };
    const result = planSync({
      desired: state,
      live: [applied(shoot('a'))],
      liveCompanions: [],
      commit: COMMIT,
      massDeletion: POLICY,
    });
    expect(result.entries).toMatchObject([{ shoot: 'a', action: 'blocked', reasons: ['shoots/a/shoot.yaml: broken'] }]);
    expect(result.counts.delete).toBe(0);
  });

  it('blocks a desired Shoot that Gardener is deleting, and does not count a running deletion against the guard', () => {
    const deleting = (name: string) =>
      applied(shoot(name), (l) => {
        l.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
      });
    const result = plan([want(shoot('a'))], [deleting('a'), deleting('b'), deleting('c'), deleting('d')]);
    expect(result.entries.map((e) => [e.shoot, e.action, e.alreadyDeleting ?? false])).toEqual([
      ['a', 'blocked', false],
      ['b', 'delete', true],
      ['c', 'delete', true],
      ['d', 'delete', true],
    ]);
    expect(result.refused).toBeUndefined();
  });

  it('plans companions first, with their own changes, and prunes those Git no longer has', () => {
    const liveCompanions = [
      applied(configMap('auth', { k: 'old' }), () => {}, 'a'),
      applied(configMap('stale'), () => {}, 'a'),
      applied(configMap('of-b'), () => {}, 'b'),
    ];
    const result = plan(
      [want(shoot('a'), [configMap('auth', { k: 'new' }), configMap('fresh')])],
      [applied(shoot('a'))],
      { liveCompanions },
    );
    const entry = result.entries[0];
    expect(entry?.action).toBe('update');
    expect(entry?.companions.map((c) => [c.name, c.action])).toEqual([
      ['auth', 'update'],
      ['fresh', 'create'],
      ['stale', 'delete'],
    ]);
    expect(entry?.companions[0]?.changes.map((c) => c.path)).toEqual(['data.k']);
    expect(entry?.companions[1]?.manifest?.metadata.labels?.[COMPANION_OF_LABEL]).toBe('a');
  });

  it('lists the companions of a deleted Shoot for deletion after it', () => {
    const liveCompanions = [applied(configMap('auth'), () => {}, 'gone'), configMap('unowned')];
    const entry = plan([], [applied(shoot('gone'))], { liveCompanions }).entries[0];
    expect(entry?.companions.map((c) => [c.name, c.action])).toEqual([['auth', 'delete']]);
  });

  describe('mass-deletion guard (rules/mass-deletion.ts)', () => {
    const inventory = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => applied(shoot(n)));
    it.each<[string, string[], number | undefined, boolean]>([
      ['within the limit', ['a', 'b', 'c', 'd', 'e'], undefined, false],
      ['over maxShoots', ['a', 'b', 'c'], undefined, true],
      ['over maxShoots, override covers it', ['a', 'b', 'c'], 3, false],
      ['over maxShoots, override too small', ['a', 'b', 'c'], 2, true],
    ])('%s', (_what, keep, override, refused) => {
      const result = plan(
        keep.map((n) => want(shoot(n))),
        inventory,
        override !== undefined ? { allowMassDeletion: override } : {},
      );
      expect(result.refused !== undefined).toBe(refused);
      if (refused) expect(result.refused?.message).toMatch(/--allow-mass-deletion 3/);
    });
  });
});

describe('planSync for Shoots KIM leads (ADR 0011)', () => {
  const kims = (name: string, edit?: (s: Shoot) => void) => withLeader(shoot(name, edit), 'kim');
  /** A live Shoot as KIM wrote it: no ownership label or kimops marker, KIM's field manager. */
  const kimLive = (name: string, edit?: (s: Shoot) => void) =>
    applied(shoot(name, edit), (l) => {
      delete l.metadata.labels?.[OWNERSHIP_LABEL];
      delete l.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION];
      l.metadata.managedFields = [{ manager: 'kim', operation: 'Apply', fieldsV1: { 'f:spec': {} } }];
    });

  it('shadows a marked folder: the differences computed, nothing written, even with no live Shoot', () => {
    const result = plan(
      [want(kims('a', (s) => (worker(s, 'b').maximum = 9))), want(kims('b')), want(kims('c'))],
      [kimLive('a'), kimLive('b')],
    );
    expect(result.entries.map((e) => [e.shoot, e.action])).toEqual([
      ['a', 'shadow'],
      ['b', 'shadow'],
      ['c', 'shadow'],
    ]);
    expect(result.counts).toMatchObject({ shadow: 3, create: 0, update: 0, 'take-over': 0 });
    const [a, b, c] = result.entries;
    expect(a?.object).toMatchObject({
      action: 'unchanged',
      changes: [{ path: 'spec.provider.workers[b].maximum', before: 5, after: 9 }],
    });
    expect(a?.object.manifest).toBeUndefined();
    expect(a?.reasons).toEqual([
      `KIM leads this Shoot (${LEADER_ANNOTATION}: kim in main): nothing is written`,
      expect.stringMatching(/^spec\.provider\.workers\[b\]\.maximum/),
    ]);
    expect(b?.object.changes).toEqual([]);
    expect(c?.reasons).toEqual([
      `KIM leads this Shoot (${LEADER_ANNOTATION}: kim in main): not live, and kimops creates nothing`,
    ]);
  });

  it("never deletes a marked folder's Shoot, not even one being deleted", () => {
    const deleting = kimLive('a', () => {});
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(plan([want(kims('a'))], [deleting]).entries.map((e) => e.action)).toEqual(['shadow']);
  });

  it('hands back a marked Shoot kimops still owns: its fields to kim at their live values, then the identity alone', () => {
    const live = applied(shoot('a'), (l) => {
      l.metadata.managedFields = [
        { manager: 'kimops', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': {} } },
        // KIM applied hibernation before the take-over, a field main does not set: it must stay KIM's.
        { manager: 'kim', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:hibernation': {} } } },
      ];
    });
    live.spec.kubernetes.version = '1.33.9'; // raised by Gardener's maintenance: main says less
    (live.spec as Record<string, unknown>).hibernation = { enabled: false };
    const [entry] = plan([want(kims('a'))], [live]).entries;
    expect(entry?.action).toBe('hand-back');
    const kim = entry?.handBack?.kim as Shoot;
    expect(entry?.handBack?.manager).toBe('kim');
    expect(kim.spec.kubernetes.version).toBe('1.33.9');
    expect((kim.spec as Record<string, unknown>).hibernation).toEqual({ enabled: false });
    expect(kim.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
    expect(kim.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION]).toBeUndefined();
    expect(kim.metadata.annotations?.[LEADER_ANNOTATION]).toBeUndefined();
    expect(kim).not.toHaveProperty('status');
    expect(kim.metadata).not.toHaveProperty('resourceVersion');
    expect(entry?.handBack?.release).toEqual({
      apiVersion: live.apiVersion,
      kind: 'Shoot',
      metadata: { name: 'a', namespace: live.metadata.namespace },
    });
    // kimops applying as `kim` already (kimops.yaml apply.fieldManager): one apply, no release of the identity alone.
    const asKim = plan([want(kims('a'))], [live], { fieldManager: 'kim' }).entries[0]?.handBack;
    expect(asKim?.manager).toBe('kim');
    expect(asKim?.release).toBeUndefined();
    // Killed after the release, before the markers went: the next sync finishes the hand-back.
    const interrupted = structuredClone(live);
    delete interrupted.metadata.labels?.[OWNERSHIP_LABEL];
    const [again] = plan([want(kims('a'))], [interrupted]).entries;
    expect(again?.action).toBe('hand-back');
    expect(again?.handBack?.unannotate).toEqual([APPLIED_COMMIT_ANNOTATION]);
    // Handed back, the live Shoot carries neither the ownership label nor a marker: the next plan is a shadow.
    const after = structuredClone(interrupted);
    delete after.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION];
    expect(plan([want(kims('a'))], [after]).entries.map((e) => e.action)).toEqual(['shadow']);
  });

  it('takes over an unmarked folder whose live Shoot KIM wrote, and never writes the mark to the Garden', () => {
    const [entry] = plan([want(shoot('a'))], [kimLive('a')]).entries;
    expect(entry?.action).toBe('take-over');
    const marked = plan([want(withLeader(shoot('a'), 'kimops'))], []).entries[0];
    expect(marked?.object.manifest?.metadata.annotations?.[LEADER_ANNOTATION]).toBeUndefined();
  });

  it("remembers a shadow like an unchanged entry, and plans again when the leader (the folder's tree) changes", () => {
    const memo = new Map();
    const live = kimLive('a');
    live.metadata.resourceVersion = '7';
    plan([want(kims('a'))], [live], { memo, trees: new Map([['a', 'tree-kim']]) });
    expect([...memo.values()].map((e) => e.action)).toEqual(['shadow']);
    expect(rememberedFolders(memo, new Map([['a', 'tree-kim']]), [live], [])).toEqual(new Set(['a']));
    expect(rememberedFolders(memo, new Map([['a', 'tree-kimops']]), [live], [])).toEqual(new Set());
    const next = plan([want(shoot('a'))], [live], { memo, trees: new Map([['a', 'tree-kimops']]) });
    expect(next.entries.map((e) => e.action)).toEqual(['take-over']);
  });
});
