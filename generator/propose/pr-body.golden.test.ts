// The PR body of every change class against a reviewed copy in test/fixtures/pr-bodies/<class>.md, as Atlantis
// keeps golden plan comments: a change to what reviewers read shows up as a diff of those files in review.
//
// After an intended change to the body, regenerate them and read the diff line by line before committing:
//
//   KIMOPS_UPDATE_GOLDEN=1 npx vitest run generator/propose/pr-body.golden.test.ts && git diff test/fixtures/pr-bodies/
//
// Without that variable the test only compares; a missing file fails it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_LICENCE_TYPE, ANNOTATION_RUNTIME_ID, VALIDATE_CONTEXT } from '../../model/contract.js';
import { DEFAULT_MASS_DELETION, DEFAULT_MERGE_POLICY } from '../../model/kimops-config.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { testShoot, worker } from '../../test/helpers/test-shoot.js';
import { classifyChange, type ChangeClass } from './classify.js';
import { planDeletions } from './deletions.js';
import type { PullRequestLabel } from './labels.js';
import type { CheckResult } from './merge-policy.js';
import { renderPullRequest, rolloutWaveAfter, type PullRequestInput, type ShootProposal } from './pr-body.js';
import { skrClass, type SkrChange } from './skr-changes.js';
import { leaderClass } from './leader-class.js';
import { withLeader } from '../../rules/leader.js';

const UPDATE = process.env.KIMOPS_UPDATE_GOLDEN === '1';
const golden = (name: string) => new URL(`../../test/fixtures/pr-bodies/${name}.md`, import.meta.url);

const merge = { policy: DEFAULT_MERGE_POLICY, requiredChecks: [VALIDATE_CONTEXT, 'validate'] };
const passed: CheckResult[] = [
  { name: 'shoot-schema', passed: true, messages: [] },
  { name: 'credentials', passed: true, messages: [] },
];

/** The test Shoot as KIM renders one: the account labels and the runtime id beside the generation it came from. */
function shoot(name = 'c-1', generation = 3): Shoot {
  const s = testShoot();
  s.metadata.name = name;
  s.metadata.labels = { account: 'ga-0001', subaccount: 'sa-0001' };
  s.metadata.annotations = {
    [ANNOTATION_RUNTIME_ID]: `rt-${name}`,
    'infrastructuremanager.kyma-project.io/runtime-generation': String(generation),
  };
  return s;
}

/** KEB changed the Runtime (generation 3 → 4): the Shoot after, with `edit` applied. */
function edited(edit: (s: Shoot) => void): Shoot {
  const after = shoot('c-1', 4);
  edit(after);
  return after;
}

function update(after: Shoot, relabel?: (c: ChangeClass) => ChangeClass): PullRequestInput {
  const before = shoot();
  const classification = classifyChange({ before, after }) as ChangeClass;
  const generation = Number(after.metadata.annotations?.['infrastructuremanager.kyma-project.io/runtime-generation']);
  return single({
    shoot: 'c-1',
    runtime: { namespace: 'kcp-system', name: 'rt-c-1', generation },
    classification: relabel ? relabel(classification) : classification,
    before,
    after,
    checks: passed,
  });
}

const single = (proposal: ShootProposal): PullRequestInput => ({
  landscape: 'dev',
  branch: `kimops/dev/${proposal.shoot}`,
  proposals: [proposal],
  merge,
});

/** A delete as the pass plans it (planDeletions → the proposal plan-deletions.ts builds). */
function deletion(keb: boolean): PullRequestInput {
  const runtime = (name: string, more: Partial<Runtime['metadata']> = {}) =>
    ({
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'Runtime',
      metadata: {
        name: `rt-${name}`,
        namespace: 'kcp-system',
        creationTimestamp: '2026-01-15T09:30:00Z',
        labels: { 'kyma-project.io/runtime-id': `rt-${name}`, 'kyma-project.io/broker-plan-name': 'aws' },
        ...more,
      },
      spec: { shoot: { name } },
    }) as unknown as Runtime;
  const deleting = runtime('c-1', { deletionTimestamp: '2026-03-02T10:00:00Z', generation: 5 });
  const plan = planDeletions({
    unasked: [{ name: 'c-1', runtimeId: 'rt-c-1' }],
    runtimes: keb ? [runtime('c-2'), deleting] : [runtime('c-2')],
    runtimesComplete: true,
    failed: [],
    total: 100,
    config: { massDeletion: DEFAULT_MASS_DELETION, deprovisioning: { batchSize: 10 } },
  });
  const [planned] = plan.deletions;
  if (!planned) throw new Error(`no deletion planned: ${plan.withheld}`);
  const before = shoot();
  return single({
    shoot: planned.shoot,
    runtime: planned.runtime,
    classification: {
      ...(classifyChange({ before, runtimeDeleted: planned.askedByKeb }) as ChangeClass),
      reasons: [planned.reason],
    },
    before,
    checks: passed,
  });
}

/** The first wave of a Kubernetes minor bump no Runtime asked for: 4 of 10 Shoots, one also scaled, one warned. */
function rollout(): PullRequestInput {
  const proposals = ['c-1', 'c-2', 'c-3', 'c-4'].map((name, i): ShootProposal => {
    const before = shoot(name);
    const after = shoot(name);
    after.spec.kubernetes.version = '1.33.3';
    if (i === 2) worker(after, 'a').maximum = 6;
    const classification = classifyChange({ before, after }) as ChangeClass;
    return {
      shoot: name,
      runtime: { namespace: 'kcp-system', name: `rt-${name}`, generation: 3 },
      classification: { ...classification, class: 'rollout' },
      before,
      after,
      checks:
        i === 3
          ? [
              { name: 'shoot-schema', passed: true, messages: [] },
              {
                name: 'at-most-5-nodes',
                passed: true,
                warning: true,
                messages: ['a worker pool may grow to 5 nodes at most'],
              },
            ]
          : passed,
    };
  });
  const wave = rolloutWaveAfter(undefined, proposals.length, 6);
  return {
    landscape: 'dev',
    branch: 'kimops/dev-rollout/landscape-1a2b3c4d',
    proposals,
    rollout: { name: 'landscape-1a2b3c4d', later: 6, ...(wave && { wave }) },
    merge,
  };
}

/** KEB changed the Runtime's administrators and OIDC provider (generation 3 → 4): only the cluster's objects change. */
function skr(): PullRequestInput {
  const before = shoot();
  const after = shoot('c-1', 4);
  const changes: SkrChange[] = [
    { subject: 'OIDC kyma-oidc-0', detail: 'issuerURL https://a.example → https://b.example' },
    { subject: 'administrators', detail: '+ alice@example.com, − bob@example.com' },
  ];
  return single({
    shoot: 'c-1',
    runtime: { namespace: 'kcp-system', name: 'rt-c-1', generation: 4 },
    classification: skrClass(changes, true, (classifyChange({ before, after }) as ChangeClass).changes),
    before,
    after,
    checks: passed,
    skr: changes,
  });
}

/** The landscape's default OIDC changed: a rollout wave that changes nothing but the clusters' OpenIDConnects. */
function skrUnrequested(): PullRequestInput {
  const change: SkrChange = { subject: 'OIDC kyma-oidc-0', detail: 'issuerURL https://a.example → https://b.example' };
  const proposals = ['c-1', 'c-2', 'c-3'].map((name): ShootProposal => ({
    shoot: name,
    runtime: { namespace: 'kcp-system', name: `rt-${name}`, generation: 3 },
    classification: skrClass([change], false, []),
    before: shoot(name),
    after: shoot(name),
    checks: passed,
    skr: [change],
  }));
  const wave = rolloutWaveAfter(undefined, proposals.length, 0);
  return {
    landscape: 'dev',
    branch: 'kimops/dev-rollout/landscape-5e6f7a8b',
    proposals,
    rollout: { name: 'landscape-5e6f7a8b', later: 0, ...(wave && { wave }) },
    merge,
  };
}

/** KEB changed a Runtime KIM leads (generation 3 → 4): main's shadow of its Shoot follows, nothing live changes. */
function shadow(): PullRequestInput {
  const before = withLeader(shoot(), 'kim');
  const after = withLeader(
    edited((s) => {
      worker(s, 'a').maximum = 4;
    }),
    'kim',
  );
  return single({
    shoot: 'c-1',
    runtime: { namespace: 'kcp-system', name: 'rt-c-1', generation: 4 },
    classification: leaderClass({
      leader: 'kim',
      before,
      after,
      classification: classifyChange({ before, after }) as ChangeClass,
    }),
    before,
    after,
    checks: passed,
  });
}

/**
 * The Runtime's label moved it between KIM and kimops; main's Shoot changes by its leader mark only. A take-over
 * read against a live Shoot that is what main says; a hand-back with the live Shoot not read.
 */
function cutOver(leader: 'kimops' | 'kim'): PullRequestInput {
  const before = withLeader(shoot(), leader === 'kimops' ? 'kim' : 'kimops');
  const after = withLeader(shoot(), leader);
  const classification = classifyChange({ before, after }) as ChangeClass;
  return single({
    shoot: 'c-1',
    runtime: { namespace: 'kcp-system', name: 'rt-c-1', generation: 3 },
    classification: leaderClass({
      leader,
      before,
      after,
      classification,
      ...(leader === 'kimops' && { garden: { live: withLeader(shoot(), 'kimops') } }),
    }),
    before,
    after,
    checks: passed,
  });
}

const cases: [name: string, input: () => PullRequestInput, title: string, label: PullRequestLabel][] = [
  [
    'create',
    () =>
      single({
        shoot: 'c-1',
        runtime: { namespace: 'kcp-system', name: 'rt-c-1', generation: 1 },
        classification: classifyChange({ after: shoot('c-1', 1) }) as ChangeClass,
        after: shoot('c-1', 1),
        checks: passed,
      }),
    '[dev] create: c-1',
    'kimops:create',
  ],
  [
    'update',
    () =>
      update(
        edited((s) => {
          worker(s, 'a').maximum = 4;
        }),
      ),
    '[dev] update (non-disruptive): c-1',
    'kimops:update',
  ],
  [
    'update-disruptive',
    () =>
      update(
        edited((s) => {
          s.spec.kubernetes.version = '1.33.3';
        }),
      ),
    '[dev] update (disruptive): c-1',
    'kimops:update-disruptive',
  ],
  [
    'immutable',
    () =>
      update(
        edited((s) => {
          s.spec.region = 'eu-west-1';
          s.spec.networking.pods = '100.96.0.0/11';
        }),
      ),
    '[dev] immutable (blocked): c-1',
    'kimops:blocked',
  ],
  [
    'adopt',
    // As plan.ts relabels it: Gardener's maintenance raised the patch version of the live Shoot.
    () =>
      update(
        edited((s) => {
          s.metadata.annotations = {
            ...s.metadata.annotations,
            'infrastructuremanager.kyma-project.io/runtime-generation': '3',
          };
          s.spec.kubernetes.version = '1.32.7';
        }),
        (c) => ({
          ...c,
          class: 'adopt',
          reasons: [
            'the live Shoot in the Garden differs from main (Gardener changed it, e.g. a maintenance update): git follows it',
            ...c.reasons,
          ],
        }),
      ),
    '[dev] adopt: c-1',
    'kimops:adopt',
  ],
  [
    'metadata-only',
    () =>
      update(
        edited((s) => {
          s.metadata.annotations = { ...s.metadata.annotations, [ANNOTATION_LICENCE_TYPE]: 'TestDevelopmentAndDemo' };
        }),
      ),
    '[dev] metadata-only: c-1',
    'kimops:metadata-only',
  ],
  ['delete', () => deletion(true), '[dev] delete: c-1', 'kimops:delete'],
  [
    'delete-runtime-absent',
    () => deletion(false),
    '[dev] delete (Runtime absent): c-1',
    'kimops:delete-runtime-absent',
  ],
  [
    'rollout',
    rollout,
    '[dev] rollout: kubernetes 1.32.5 → 1.33.3 and 1 more change, wave 1/3, 4 shoots',
    'kimops:rollout',
  ],
  ['skr', skr, '[dev] skr: c-1', 'kimops:skr'],
  [
    'skr-unrequested',
    skrUnrequested,
    '[dev] rollout: SKR OIDC kyma-oidc-0: issuerURL https://a.example → https://b…, wave 1/1, 3 shoots',
    'kimops:skr-unrequested',
  ],
  ['shadow', shadow, '[dev] shadow: c-1', 'kimops:shadow'],
  ['cut-over-take-over', () => cutOver('kimops'), '[dev] cut-over: c-1', 'kimops:cut-over'],
  ['cut-over-hand-back', () => cutOver('kim'), '[dev] cut-over (review): c-1', 'kimops:cut-over'],
];

describe('PR bodies of every class, against their reviewed copies', () => {
  it.each(cases)('%s', (name, input, title, label) => {
    const pr = renderPullRequest(input());
    expect(pr.title).toBe(title);
    expect(pr.label).toBe(label);
    expect(pr.truncated).toBe(false);
    if (UPDATE) writeFileSync(golden(name), pr.body);
    else if (!existsSync(golden(name)))
      throw new Error(`test/fixtures/pr-bodies/${name}.md is missing: run with KIMOPS_UPDATE_GOLDEN=1 and review it`);
    expect(pr.body).toBe(readFileSync(golden(name), 'utf8'));
  });
});
