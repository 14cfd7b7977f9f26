import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { conversionSettingsOf } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { convertRuntime } from '../convert/index.js';
import { classifyChange, type ChangeClass } from './classify.js';
import { DEFAULT_MERGE_POLICY } from '../../model/kimops-config.js';
import {
  GITHUB_BODY_LIMIT,
  prMarker,
  renderPullRequest,
  rolloutWaveAfter,
  type PullRequestInput,
  type ShootProposal,
} from './pr-body.js';
import { testShoot, worker } from '../../test/helpers/test-shoot.js';
import { skrClass } from './skr-changes.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const settings = conversionSettingsOf(
  parseLandscape(read('../../landscapes/dev/landscape.yaml'), 'landscapes/dev/landscape.yaml', 'dev'),
);
const runtime = parse(read('../../examples/runtimes/keb/aws.yaml')) as Runtime;

function convert(r: Runtime, live?: Shoot): Shoot {
  const result = convertRuntime({ runtime: r, settings, live });
  if (!result.ok) throw result.error;
  return result.shoot;
}

/** KEB raises the worker maximum of the AWS example: the Runtime's generation 4 re-renders the live Shoot. */
function scaledUp(): ShootProposal {
  const before = convert(runtime);
  const changedRuntime = structuredClone(runtime);
  changedRuntime.metadata.generation = 4;
  changedRuntime.spec.shoot.provider.workers = changedRuntime.spec.shoot.provider.workers.map((w) => ({
    ...w,
    maximum: 25,
  }));
  const after = convert(changedRuntime, before);
  return {
    shoot: 'c-78fcc25',
    runtime: { namespace: 'kcp-system', name: runtime.metadata.name, generation: 4 },
    classification: classifyChange({ before, after }) as ChangeClass,
    before,
    after,
    checks: [{ name: 'schema', passed: true, messages: [] }],
  };
}

const merge = { policy: DEFAULT_MERGE_POLICY, requiredChecks: ['kimops/validate'] };
const input = (proposals: ShootProposal[]): PullRequestInput => ({
  landscape: 'dev',
  branch: 'kimops/dev/c-78fcc25',
  proposals,
  merge,
});

describe('renderPullRequest for one Shoot', () => {
  const pr = renderPullRequest(input([scaledUp()]));

  it('titles the PR with landscape, class and Shoot', () => {
    expect(pr.title).toBe('[dev] update (non-disruptive): c-78fcc25');
  });

  it('starts with a hidden marker naming landscape and branch', () => {
    expect(pr.body.split('\n')[0]).toBe('<!-- kimops:pr landscape=dev branch=kimops/dev/c-78fcc25 -->');
    expect(prMarker('dev', 'kimops/dev/c-78fcc25')).toBe(pr.body.split('\n')[0]);
  });

  it('has the summary row with Runtime, generation, class and checks', () => {
    expect(pr.body).toContain(
      '| `c-78fcc25` | `kcp-system/61dd7761-08dc-59ce-840d-342f5e487157` (generation 4) | update (non-disruptive) | ✅ 1/1 passed |',
    );
  });

  it('lists the semantic diff keyed by worker name, and the reason for the class', () => {
    expect(pr.body).toContain('### Changes\n\n- `spec.provider.workers[cpu-worker-0].maximum` 20 → 25\n\n');
    expect(pr.body).toContain(
      '**Why this class**\n\n- no node is replaced: spec.provider.workers[cpu-worker-0].maximum\n\n',
    );
  });

  it("leaves KIM's generation annotation out of the changes and reasons; only the YAML diff has it", () => {
    const [, ...sections] = pr.body.split('<details>');
    expect(pr.body.split('<details>')[0]).not.toContain('runtime-generation');
    expect(sections.join('')).toContain('-    infrastructuremanager.kyma-project.io/runtime-generation: "0"');
  });

  it('says how it merges: per the policy of its class, when the required checks pass', () => {
    expect(pr.body).toContain(
      '**Merge:** auto-merges per `mergePolicy.update` when the required check passes: `kimops/validate`.\n',
    );
    expect(pr.label).toBe('kimops:update');
  });

  it('folds the unified YAML diff of the canonical manifest', () => {
    expect(pr.body).toContain(
      '<details><summary>YAML diff: shoots/c-78fcc25/shoot.yaml</summary>\n\n```diff\n--- a/shoots/c-78fcc25/shoot.yaml\n+++ b/shoots/c-78fcc25/shoot.yaml\n@@',
    );
    expect(pr.body).toContain('\n-      maximum: 20\n+      maximum: 25\n');
    expect(pr.body).toMatch(/```\n\n<\/details>/);
  });

  it('shows validation results and how to roll back before the merge SHA exists', () => {
    expect(pr.body).toContain('### Validation\n\n- ✅ schema');
    expect(pr.body).toContain("`git revert -m 1 <this PR's merge commit>`");
  });

  it('is not truncated, and the full report is the body without the marker', () => {
    expect(pr.truncated).toBe(false);
    expect(pr.body).toBe(`<!-- kimops:pr landscape=dev branch=kimops/dev/c-78fcc25 -->\n${pr.fullReport}`);
    expect(pr.reportPath).toBe('.kimops/reports/c-78fcc25.md');
  });

  it('gives the same bytes for the same input', () => {
    expect(renderPullRequest(input([scaledUp()]))).toEqual(pr);
  });
});

describe('renderPullRequest, other classes', () => {
  it('shows failed checks with their messages', () => {
    const proposal = {
      ...scaledUp(),
      checks: [
        {
          name: 'policy',
          passed: false,
          messages: ['spec.provider.workers[cpu-worker-0].maximum: at most 20 on this plan'],
        },
      ],
    };
    const { body } = renderPullRequest(input([proposal]));
    expect(body).toContain('| ❌ policy failed |');
    expect(body).toContain('- ❌ policy\n  - spec.provider.workers[cpu-worker-0].maximum: at most 20 on this plan');
    expect(body).toContain('Now: ❌ policy failed (see Validation), so nothing merges until it passes.');
  });

  it('lists what blocks a change Gardener would reject, and offers no rollback of what never merges', () => {
    const before = testShoot();
    const after = structuredClone(before);
    after.spec.region = 'eu-west-1';
    const pr = renderPullRequest(
      input([
        {
          shoot: 'c-1',
          runtime: { namespace: 'kcp-system', name: 'r-1', generation: 2 },
          classification: classifyChange({ before, after }) as ChangeClass,
          before,
          after,
          checks: [],
        },
      ]),
    );
    expect(pr.label).toBe('kimops:blocked');
    expect(pr.body).toContain(
      '**Merge:** blocked: Gardener would reject this change, so it never merges:\n- spec.region eu-central-1 → eu-west-1: Gardener does not allow changing it\n',
    );
    expect(pr.body).not.toContain('Why this class');
    expect(pr.body).not.toContain('### Rollback');
  });

  it('summarises a delete (Runtime, plan, region, account, age) instead of listing every field it removes', () => {
    const before = testShoot();
    const pr = renderPullRequest(
      input([
        {
          shoot: 'c-1',
          runtime: {
            namespace: 'kcp-system',
            name: 'r-1',
            plan: 'azure',
            createdAt: '2026-01-01T00:00:00Z',
            deletionRequestedAt: '2026-01-02T12:00:00Z',
          },
          classification: classifyChange({ before, runtimeDeleted: true }) as ChangeClass,
          before,
          checks: [],
        },
      ]),
    );
    expect(pr.label).toBe('kimops:delete');
    expect(pr.body).toContain('### The Shoot that goes\n\n- **Runtime:** `kcp-system/r-1`');
    expect(pr.body).toContain('- **Plan:** `azure`\n- **Provider and region:** aws, eu-central-1\n');
    expect(pr.body).toContain('- **Age:** 1 day (Runtime created 2026-01-01T00:00:00Z');
    expect(pr.body).not.toContain('removed (was');
    expect(pr.body).not.toContain('YAML diff');
    expect(pr.body.split('\n').length).toBeLessThan(40);
  });

  it('diffs a create against /dev/null and warns that reverting deletes the cluster', () => {
    const after = testShoot();
    const pr = renderPullRequest(
      input([
        {
          shoot: 'c-1',
          runtime: { namespace: 'kcp-system', name: 'r-1', generation: 1 },
          classification: classifyChange({ after }) as ChangeClass,
          after,
          checks: [],
        },
      ]),
    );
    expect(pr.title).toBe('[dev] create: c-1');
    expect(pr.body).toContain(
      '### The new Shoot\n\n- **Runtime:** `kcp-system/r-1` (no runtime id recorded, generation 1)',
    );
    expect(pr.body).not.toContain(' added: ');
    expect(pr.body).toContain('--- /dev/null\n+++ b/shoots/c-1/shoot.yaml');
    expect(pr.body).toContain('- Reverting a create deletes the new cluster');
    expect(pr.body).toContain('| none |');
  });
});

/**
 * A rollout wave: every Shoot gets the same Kubernetes bump, one also a scale change. With `padding`, each Shoot's
 * YAML diff is long and its own (a bookkeeping annotation of that many characters changes), its changes the same.
 */
function rolloutProposals(count: number, padding = 0): ShootProposal[] {
  const note = 'kimops.kyma-project.io/note';
  return Array.from({ length: count }, (_, i) => {
    const before = testShoot();
    before.metadata.name = `c-${String(i).padStart(4, '0')}`;
    if (padding > 0)
      before.metadata.annotations = { ...before.metadata.annotations, [note]: `${i}${'x'.repeat(padding)}` };
    const after = structuredClone(before);
    after.spec.kubernetes.version = '1.33.3';
    if (padding > 0)
      after.metadata.annotations = { ...after.metadata.annotations, [note]: `${i}${'y'.repeat(padding)}` };
    if (i === 0) worker(after, 'a').maximum = 9;
    return {
      shoot: before.metadata.name,
      runtime: { namespace: 'kcp-system', name: `r-${i}` },
      classification: { ...(classifyChange({ before, after }) as ChangeClass), class: 'rollout' },
      before,
      after,
      checks: [{ name: 'schema', passed: i !== 1, messages: i === 1 ? ['broken'] : [] }],
    };
  });
}

describe('renderPullRequest for a rollout wave', () => {
  it('is named after its change, shows each distinct diff once with its Shoots, and lists only failing checks', () => {
    const pr = renderPullRequest({
      landscape: 'dev',
      branch: 'kimops/dev/rollout-k8s-1.33',
      proposals: rolloutProposals(5),
      rollout: { name: 'k8s-1.33', later: 1_210 },
      merge,
    });
    // 1,210 more in waves of 5: 242 after this one. Without the rollout's earlier PRs, counted from here.
    expect(pr.title).toBe('[dev] rollout: kubernetes 1.32.5 → 1.33.3 and 1 more change, wave 1/243, 5 shoots');
    expect(pr.body).toContain('Waves are counted from the Shoots still to change.');
    expect(pr.label).toBe('kimops:rollout');
    expect(pr.body).toContain(
      '**4 shoots:** `c-0001`, `c-0002`, `c-0003`, `c-0004`\n- `spec.kubernetes.version` 1.32.5 → 1.33.3\n\n' +
        '**1 shoot:** `c-0000`\n- `spec.kubernetes.version` 1.32.5 → 1.33.3\n- `spec.provider.workers[a].maximum` 3 → 9\n',
    );
    expect(pr.body).toContain('- ✅ 4 shoots pass every check\n- ❌ `c-0001` schema\n  - broken');
    expect(pr.body).toContain(
      '- 5 shoots: spec.kubernetes.version 1.32.5 → 1.33.3: a new Kubernetes minor version replaces every node',
    );
    expect(pr.body).toContain(
      '**Merge:** waits for 1 approval (`mergePolicy.rollout`) by a code owner of its files, or by a collaborator where CODEOWNERS names none',
    );
    // Two YAML diffs for five Shoots: the four with the same changed lines share one.
    expect(pr.body.split('<details>')).toHaveLength(3);
    expect(pr.body).toContain(
      '<details><summary>YAML diff: shoots/c-0001/shoot.yaml, the same changed lines in 3 more shoots</summary>\n\nThe same lines change in `c-0002`, `c-0003`, `c-0004`.',
    );
    expect(pr.reportPath).toBe('.kimops/reports/rollout-k8s-1.33.md');
  });

  it('is blocked as a whole by a Shoot whose change Gardener would reject, naming that Shoot', () => {
    const proposals = rolloutProposals(3);
    const blocked = proposals[2] as ShootProposal;
    const after = structuredClone(blocked.after as Shoot);
    after.spec.region = 'eu-west-1';
    proposals[2] = {
      ...blocked,
      after,
      classification: classifyChange({ before: blocked.before, after }) as ChangeClass,
    };
    const pr = renderPullRequest({
      landscape: 'dev',
      branch: 'b',
      proposals,
      rollout: { name: 'r', later: 0 },
      merge,
    });
    expect(pr.label).toBe('kimops:blocked');
    expect(pr.body).toContain(
      '**Merge:** blocked: Gardener would reject this change, so it never merges:\n- `c-0002`: spec.region eu-central-1 → eu-west-1',
    );
  });

  it('merges a wave of changes only inside the clusters as skr-unrequested; one Shoot change makes it a rollout', () => {
    const oidc = { subject: 'OIDC kyma-oidc-0', detail: 'issuerURL https://a.example → https://b.example' };
    const insideOnly = rolloutProposals(3).map((p): ShootProposal => ({
      ...p,
      after: p.before as Shoot,
      classification: skrClass([oidc], false, []),
      skr: [oidc],
    }));
    const wave = (proposals: ShootProposal[]) =>
      renderPullRequest({ landscape: 'dev', branch: 'b', proposals, rollout: { name: 'r', later: 0 }, merge });
    const skrOnly = wave(insideOnly);
    expect(skrOnly.label).toBe('kimops:skr-unrequested');
    expect(skrOnly.title).toBe(
      '[dev] rollout: SKR OIDC kyma-oidc-0: issuerURL https://a.example → https://b…, wave 1/1, 3 shoots',
    );
    expect(skrOnly.body).toContain('(`mergePolicy.skr-unrequested`)');
    expect(skrOnly.body).toContain(
      '**3 shoots:** `c-0000`, `c-0001`, `c-0002`\n- inside the cluster: OIDC kyma-oidc-0: issuerURL https://a.example → https://b.example\n',
    );
    const mixed = wave([...insideOnly.slice(1), { ...(rolloutProposals(1)[0] as ShootProposal), skr: [oidc] }]);
    expect(mixed.label).toBe('kimops:rollout');
    // Named after what the whole wave changes: the SKR change; the one Shoot's own changes are counted.
    expect(mixed.title).toBe(
      '[dev] rollout: SKR OIDC kyma-oidc-0: issuerURL https://a.example → https://b… and 2 more changes, wave 1/1, 3 shoots',
    );
  });

  it("merges the first skr/ objects of Shoots written by an older kimops as skr, the Runtimes' own", () => {
    const namespace = { subject: 'Namespace kyma-system', detail: 'added' };
    const first = rolloutProposals(3).map((p): ShootProposal => ({
      ...p,
      after: p.before as Shoot,
      classification: skrClass([namespace], true, []),
      skr: [namespace],
    }));
    const pr = renderPullRequest({
      landscape: 'dev',
      branch: 'b',
      proposals: first,
      rollout: { name: 'first-skr-objects', later: 0 },
      merge,
    });
    expect(pr.label).toBe('kimops:skr');
    expect(pr.body).toContain('**Merge:** auto-merges per `mergePolicy.skr` when the required check passes');
    expect(pr.title).toBe('[dev] rollout: SKR Namespace kyma-system: added, wave 1/1, 3 shoots');
  });

  it("stays under GitHub's limit with a huge diff, keeping summary, class and rollback", () => {
    const proposals = rolloutProposals(400, 2000);
    const pr = renderPullRequest({
      landscape: 'dev',
      branch: 'kimops/dev/rollout-big',
      proposals,
      rollout: { name: 'big', later: 0 },
      merge,
    });
    expect(pr.truncated).toBe(true);
    expect(pr.fullReport.length).toBeGreaterThan(GITHUB_BODY_LIMIT * 2);
    expect(Buffer.byteLength(pr.body, 'utf8')).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    expect(
      pr.body.startsWith('<!-- kimops:pr landscape=dev branch=kimops/dev/rollout-big -->\n> **This body is shortened'),
    ).toBe(true);
    expect(pr.body).toContain(
      'The full report is `.kimops/reports/rollout-big.md` on branch `kimops/dev/rollout-big`.',
    );
    expect(pr.body).toContain('**Why this class**');
    expect(pr.body).toContain('**399 shoots:** `c-0001`, `c-0002`');
    expect(pr.body).toMatch(/### Rollback\n\nAfter this PR is merged, revert its merge commit[^]*\n$/);
    expect(pr.body).toMatch(/_\d+ more sections are only in the full report\._/);
    // Every fence and <details> that was opened is closed.
    expect(pr.body.split('```').length % 2).toBe(1);
    expect(pr.body.split('<details>').length).toBe(pr.body.split('</details>').length);
  });

  it('cuts a too-long section at a line and says how many lines are left out', () => {
    const proposal = scaledUp();
    const full = renderPullRequest(input([proposal]));
    const limit = full.body.length - 200;
    const pr = renderPullRequest({ ...input([proposal]), maxBodySize: limit });
    expect(pr.truncated).toBe(true);
    expect(Buffer.byteLength(pr.body, 'utf8')).toBeLessThanOrEqual(limit);
    expect(pr.body).toMatch(/… \d+ more lines? in the full report\n```\n\n<\/details>/);
    expect(pr.fullReport).toBe(full.fullReport);
  });
});

describe('rolloutWaveAfter', () => {
  const previous = (title: string, merged: boolean) => ({ title, merged });
  it.each<[string, { title: string; merged: boolean } | undefined, { number: number; of: number } | undefined]>([
    ['the first wave when the branch had no PR before', undefined, { number: 1, of: 3 }],
    [
      'the wave after a merged one',
      previous('[dev] rollout: kubernetes 1.32.5 → 1.33.3, wave 1/3, 5 shoots', true),
      { number: 2, of: 4 },
    ],
    [
      'the same wave again after one closed unmerged',
      previous('[dev] rollout: kubernetes 1.32.5 → 1.33.3, wave 2/3, 5 shoots', false),
      { number: 2, of: 4 },
    ],
    ['nothing after a title naming no wave', previous('[dev] rollout landscape-1: 5 shoots', true), undefined],
  ])('%s', (_what, before, expected) => {
    // 10 Shoots after a wave of 5: two more waves.
    expect(rolloutWaveAfter(before, 5, 10)).toEqual(expected);
  });

  it('makes the last wave the last', () => {
    expect(rolloutWaveAfter(previous('[dev] rollout: x → 1, wave 2/3, 5 shoots', true), 2, 0)).toEqual({
      number: 3,
      of: 3,
    });
  });
});
