// Why a Shoot changes decides how it is proposed: a Runtime's own change gets the Shoot's own PR; a
// landscape change goes out as rollout waves; a Garden-side change is adopted; suspended Runtimes are
// left alone, forced ones re-rendered; a long-running generator renders only what may have changed.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { localForge, type LocalForge } from '../../../adapters/forge/local.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { ConfigError } from '../../../model/errors.js';
import { conversionSettingsOf, type ConversionSettings } from '../../../model/landscape.js';
import type { Runtime } from '../../../model/runtime.js';
import { ANNOTATION_FORCE_PATCH, ANNOTATION_SUSPEND_PATCH, rolloutBranchOf } from '../../../model/contract.js';
import type { Shoot } from '../../../model/shoot.js';
import { kimops } from '../../helpers/cli.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { generate, type GenerateInput } from '../../../generator/generate.js';
import { RenderMemo } from '../../../generator/render-memo.js';
import { parsePolicyFile } from '../../../generator/validate/policy-file.js';
import { parseYaml11 } from '../../../model/yaml-input.js';

const dir = useTempDir('generate-changes');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };

/** A dev landscape repo with the 15 example Runtimes (generation 1) created and merged. */
async function landscape(waveSize?: number) {
  const gitdir = `${dir.path}/repo.git`;
  expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
  const repo = await LandscapeRepo.open(gitdir);
  if (waveSize !== undefined) {
    const config = (await repo.readFile('main', 'kimops.yaml'))?.replace(
      /waveSize: \d+/,
      `waveSize: ${waveSize}`,
    ) as string;
    await repo.commitFiles({ branch: 'main', files: new Map([['kimops.yaml', config]]), message: 'policy', author });
  }
  const forge = localForge(repo);
  const runtimes = (await readRuntimes(EXAMPLES)).runtimes.map((r) => ({
    ...r,
    runtime: { ...r.runtime, metadata: { ...r.runtime.metadata, generation: 1 } },
  }));
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const logs: string[] = [];
  const run = (overrides: Partial<GenerateInput> = {}) =>
    generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      author,
      log: (line) => logs.push(line),
      ...overrides,
    });
  const created = await run();
  expect(created.proposed.map((p) => `${p.class} ${p.action}`)).toEqual(Array(15).fill('create auto-merge'));
  return { repo, forge, runtimes, settings, run, logs };
}

/** The landscape turned on an API server feature gate: a change no Runtime asked for. */
function withFeatureGate(settings: ConversionSettings): ConversionSettings {
  const changed = structuredClone(settings);
  const kubeApiServer = changed.config.kubernetes?.kubeApiServer;
  changed.config.kubernetes = {
    ...changed.config.kubernetes,
    kubeApiServer: { ...kubeApiServer, featureGates: { ...kubeApiServer?.featureGates, KimopsTestGate: true } },
  };
  return changed;
}

/** The Runtime for `shoot`, changed by KEB: worker maximum raised, generation bumped. */
function changedRuntime(
  runtimes: GenerateInput['runtimes'],
  index: number,
  change: (runtime: Runtime) => void = () => undefined,
) {
  return runtimes.map((entry, i) => {
    if (i !== index) return entry;
    const runtime = structuredClone(entry.runtime);
    change(runtime);
    return { ...entry, runtime };
  });
}

async function openPulls(forge: LocalForge) {
  const all = await forge.listOpenPullRequests();
  if (!all.ok) throw new Error(all.failure.message);
  return all.value;
}

async function approve(forge: LocalForge, number: number) {
  const approved = await forge.approve(number, 'test-reviewer');
  if (!approved.ok) throw new Error(approved.failure.message);
}

async function shootOnMain(repo: LandscapeRepo, name: string): Promise<Shoot> {
  return parseYaml11((await repo.readFile('main', `shoots/${name}/shoot.yaml`)) as string, name) as Shoot;
}

describe('generate: rollouts', () => {
  it('proposes a landscape change in waves, one reviewed PR at a time, never a PR per Shoot', async () => {
    const { repo, forge, settings, run } = await landscape(5);
    const changed = withFeatureGate(settings);

    const first = await run({ settings: changed });
    expect(first.rollout).toMatchObject({ shoots: 5, later: 10 });
    expect(first.proposed.map((p) => `${p.class} ${p.action}`)).toEqual(Array(5).fill('rollout await-review'));
    const [wave1, ...others] = await openPulls(forge);
    expect(others).toEqual([]);
    expect(wave1?.branch).toBe(rolloutBranchOf('dev', first.rollout?.name ?? ''));
    // Named after its change; 10 more Shoots after this wave of 5 make two more waves.
    expect(wave1?.title).toBe(
      '[dev] rollout: kubernetes.kubeAPIServer.featureGates added: {"KimopsTestGate":true}, wave 1/3, 5 shoots',
    );
    expect(wave1?.labels).toEqual(['kimops:rollout']);
    expect(wave1?.body).toMatch(
      /\*\*5 shoots:\*\* `[^\n]+`\n- `spec\.kubernetes\.kubeAPIServer\.featureGates` added: \{"KimopsTestGate":true\}\n/,
    );

    // The same inputs again: the same PR, nothing written.
    const again = await run({ settings: changed });
    expect(again.rollout?.pr).toBe(wave1?.number);
    expect(again.proposed.map((p) => p.action)).toEqual(Array(5).fill('await-review'));

    // Each approved wave is merged on the next pass, and the pass after proposes the next wave, numbered on from
    // the wave merged before it.
    const waves: string[] = [];
    for (let pass = 0; pass < 10; pass++) {
      const [open] = await openPulls(forge);
      if (!open) break;
      waves.push(/wave (\d+\/\d+), (\d+) shoots?$/.exec(open.title)?.slice(1).join(': ') ?? open.title);
      await approve(forge, open.number);
      const merged = await run({ settings: changed });
      expect(merged.proposed.filter((p) => p.pr === open.number).every((p) => p.action === 'auto-merge')).toBe(true);
      await run({ settings: changed });
    }
    // 5 + 5 + 5: the last wave has nothing after it.
    expect(waves).toEqual(['1/3: 5', '2/3: 5', '3/3: 5']);
    const done = await run({ settings: changed });
    expect(done).toMatchObject({ proposed: [], unchanged: 15 });
    expect((await shootOnMain(repo, 'c-78fcc25')).spec.kubernetes).toMatchObject({
      kubeAPIServer: { featureGates: { KimopsTestGate: true } },
    });
  });

  it("gives a Runtime's own change its own PR, carrying the landscape change too, and leaves that Shoot out of the rollout", async () => {
    const { forge, runtimes, settings, run } = await landscape();
    const changed = withFeatureGate(settings);
    const bumped = changedRuntime(runtimes, 0, (runtime) => {
      runtime.metadata.generation = 2;
      (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum += 1;
    });
    const shoot = bumped[0]?.runtime.spec.shoot.name as string;
    const result = await run({ settings: changed, runtimes: bumped });
    const own = result.proposed.find((p) => p.shoot === shoot);
    expect(own).toMatchObject({ class: 'update', action: 'auto-merge' });
    expect(result.rollout).toMatchObject({ shoots: 14, later: 0 });
    expect(result.proposed.filter((p) => p.pr === result.rollout?.pr).map((p) => p.shoot)).not.toContain(shoot);
    expect((await openPulls(forge)).map((p) => p.number)).toEqual([result.rollout?.pr]);
  });
});

describe('generate: a PR whose class a later pass changed', () => {
  it('is judged by kimops pr merge on the class recorded for its head: an update turned immutable stays refused when approved', async () => {
    const { repo, forge, runtimes, run } = await landscape();
    const config = (await repo.readFile('main', 'kimops.yaml')) as string;
    await repo.commitFiles({
      branch: 'main',
      files: new Map([
        ['kimops.yaml', config.replace('update: {mode: auto-merge}', 'update: {mode: review, approvals: 1}')],
      ]),
      message: 'review updates',
      author,
    });
    const changed = (generation: number, nodes?: string) =>
      changedRuntime(runtimes, 0, (runtime) => {
        runtime.metadata.generation = generation;
        (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum += 1;
        if (nodes !== undefined) runtime.spec.shoot.networking.nodes = nodes;
      });
    const [update] = (await run({ runtimes: changed(2) })).proposed;
    expect(update).toMatchObject({ class: 'update', action: 'await-review' });
    const [immutable] = (await run({ runtimes: changed(3, '10.251.0.0/16') })).proposed;
    expect(immutable).toMatchObject({ pr: update?.pr, class: 'immutable', action: 'blocked' });
    // The label followed the class, and the body lists what blocks it.
    const [blocked] = await openPulls(forge);
    expect(blocked?.labels).toEqual(['kimops:blocked']);
    expect(blocked?.body).toContain(
      '**Merge:** blocked: Gardener would reject this change, so it never merges:\n- spec.networking.nodes ',
    );
    await approve(forge, update?.pr as number);
    const merge = await kimops(['pr', 'merge', String(update?.pr), '--repo', repo.gitdir]);
    expect(merge.code).toBe(1);
    expect(merge.stderr).toContain('not merged, blocked: Gardener would reject this change');
  });
});

describe('generate: a superseded rollout', () => {
  it('closes the open rollout PR when the landscape changes again, and proposes the new rollout instead', async () => {
    const { forge, settings, run } = await landscape();
    const first = await run({ settings: withFeatureGate(settings) });
    const twice = withFeatureGate(settings);
    twice.config.kubernetes = { ...twice.config.kubernetes, kubelet: { featureGates: { KimopsKubeletGate: true } } };
    const second = await run({ settings: twice });
    expect(second.rollout?.name).not.toBe(first.rollout?.name);
    expect(second.closed).toEqual([first.rollout?.pr]);
    expect((await openPulls(forge)).map((p) => p.number)).toEqual([second.rollout?.pr]);
  });
});

describe('generate: suspend and force (docs/design.md §1.1)', () => {
  it('proposes nothing for a suspended Runtime, even when forced, and re-renders a forced one as its own change', async () => {
    const { runtimes, settings, run } = await landscape();
    const changed = withFeatureGate(settings);
    const annotated = changedRuntime(
      changedRuntime(
        runtimes,
        0,
        (r) =>
          (r.metadata.annotations = {
            ...r.metadata.annotations,
            [ANNOTATION_SUSPEND_PATCH]: 'true',
            [ANNOTATION_FORCE_PATCH]: 'true',
          }),
      ),
      1,
      (r) => (r.metadata.annotations = { ...r.metadata.annotations, [ANNOTATION_FORCE_PATCH]: 'true' }),
    );
    const [suspended, forced] = annotated.map((r) => r.runtime.spec.shoot.name);
    const result = await run({ settings: changed, runtimes: annotated });
    expect(result.suspended).toEqual([suspended]);
    expect(result.proposed.map((p) => p.shoot)).not.toContain(suspended);
    expect(result.proposed.find((p) => p.shoot === forced)).toMatchObject({ class: 'update', action: 'auto-merge' });
    expect(result.rollout?.shoots).toBe(13);
  });
});

describe('generate: a Runtime KEB deleted', () => {
  it("proposes its Shoot for deletion while KIM's finalizer still keeps the Runtime, and renders nothing for it", async () => {
    const { runtimes, run } = await landscape();
    const deleting = changedRuntime(runtimes, 2, (r) => {
      r.metadata = {
        ...r.metadata,
        deletionTimestamp: '2026-11-29T10:00:00Z',
        finalizers: ['runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook'],
      } as typeof r.metadata;
      r.spec.shoot.provider.workers = r.spec.shoot.provider.workers.map((w) => ({ ...w, maximum: 99 }));
    });
    const shoot = deleting[2]?.runtime.spec.shoot.name as string;
    const result = await run({ runtimes: deleting });
    expect(result.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`)).toEqual([`${shoot} delete auto-merge`]);
  });
});

describe('generate: a long-running generator', () => {
  it('renders only Runtimes whose inputs changed since the last pass', async () => {
    const { runtimes, run } = await landscape();
    const memo = new RenderMemo();
    expect(await run({ memo })).toMatchObject({ rendered: 15, unchanged: 15, proposed: [] });
    expect(await run({ memo })).toMatchObject({ rendered: 0, unchanged: 15, proposed: [] });

    const bumped = changedRuntime(runtimes, 3, (runtime) => {
      runtime.metadata.generation = 2;
      (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum += 2;
    });
    const changed = await run({ memo, runtimes: bumped });
    expect(changed).toMatchObject({ rendered: 1, unchanged: 14 });
    expect(changed.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`)).toEqual([
      `${bumped[3]?.runtime.spec.shoot.name} update auto-merge`,
    ]);
    // Main moved (the merge): that one folder's oid changed, so it is rendered once more and found equal.
    expect(await run({ memo, runtimes: bumped })).toMatchObject({ rendered: 1, unchanged: 15, proposed: [] });
    expect(await run({ memo, runtimes: bumped })).toMatchObject({ rendered: 0, unchanged: 15, proposed: [] });
    // A status write changes nothing the converter reads.
    const withStatus = bumped.map((entry) => ({
      ...entry,
      runtime: { ...entry.runtime, status: { state: 'Ready' } } as Runtime,
    }));
    expect(await run({ memo, runtimes: withStatus })).toMatchObject({ rendered: 0, unchanged: 15 });
  });
});

describe('generate: adopting what Gardener changed', () => {
  it('proposes a maintenance version update seen in the Garden as an adopt PR, merged per policy', async () => {
    const { repo, runtimes, run } = await landscape();
    const name = runtimes[0]?.runtime.spec.shoot.name as string;
    const live = await shootOnMain(repo, name);
    live.spec.kubernetes.version = '1.33.9';
    const result = await run({ gardenShoots: new Map([[name, live]]) });
    expect(result.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`)).toEqual([`${name} adopt auto-merge`]);
    expect(result.rollout).toBeUndefined();
    expect((await shootOnMain(repo, name)).spec.kubernetes.version).toBe('1.33.9');
  });
});

describe('generate: commit metadata', () => {
  it("commits as kimops.yaml's commit.author", async () => {
    const gitdir = `${dir.path}/repo.git`;
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const config = (await repo.readFile('main', 'kimops.yaml'))?.replace(
      'author: {name: kimops, email: kimops@localhost}',
      'author: {name: landscape-bot, email: bot@noreply.example.com}',
    ) as string;
    await repo.commitFiles({
      branch: 'main',
      files: new Map([['kimops.yaml', config]]),
      message: 'bot author',
      author,
    });
    const runtimes = (await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes;
    const forge = localForge(repo);
    const result = await generate({
      landscape: 'dev',
      settings: conversionSettingsOf(await readLandscape('dev')),
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      log: () => undefined,
    });
    expect(result.proposed).toHaveLength(1);
    // The create auto-merged and its branch is gone: the head kimops wrote is in the PR's record.
    const record = await forge.pullRecord(result.proposed[0]?.pr as number);
    if (!record.ok) throw new Error(record.failure.message);
    expect(record.value).toMatchObject({
      branch: `kimops/dev/${runtimes[0]?.runtime.spec.shoot.name}`,
      state: 'merged',
    });
    expect(
      execFileSync('git', ['--git-dir', gitdir, 'log', '-1', '--format=%an <%ae>', record.value.headSha], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('landscape-bot <bot@noreply.example.com>');
  });
});

describe('generate: validation', () => {
  const policy = (name: string, severity: 'deny' | 'warn', limit: number) =>
    parsePolicyFile(
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
  annotations:
    kimops.kyma-project.io/severity: ${severity}
    kimops.kyma-project.io/landscapes: "*"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [core.gardener.cloud]
      apiVersions: [v1beta1]
      resources: [shoots]
      operations: [CREATE, UPDATE]
  validations:
  - expression: "object.spec.provider.workers.all(w, w.maximum <= ${limit})"
    message: a worker pool may grow to ${limit} nodes at most
`,
      `${name}.yaml`,
    );

  it('blocks a change a deny policy fails, shows a warn policy, and reports both in the commit status', async () => {
    const { forge, runtimes, run } = await landscape();
    const validation = {
      policies: async () => [policy('at-most-40-nodes', 'deny', 40), policy('at-most-25-nodes', 'warn', 25)],
      params: async () => ({}),
    };
    const scaled = (maximum: number) =>
      changedRuntime(runtimes, 0, (runtime) => {
        runtime.metadata.generation = maximum;
        (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum = maximum;
      });

    const warned = await run({ runtimes: scaled(30), validation });
    expect(warned.proposed.map((p) => `${p.class} ${p.action}`)).toEqual(['update auto-merge']);

    const denied = await run({ runtimes: scaled(50), validation });
    expect(denied.proposed.map((p) => `${p.class} ${p.action}`)).toEqual(['update blocked']);
    const [open] = await openPulls(forge);
    expect(open?.body).toContain('- ❌ at-most-40-nodes\n  - a worker pool may grow to 40 nodes at most');
    expect(open?.body).toContain('- ⚠️ at-most-25-nodes');
    expect(open?.body).toContain('- ✅ shoot-schema');
    expect(open?.body).toContain('- ✅ credentials');
    const statuses = await forge.statuses(open?.headSha as string);
    expect(statuses.ok && statuses.value).toEqual([
      expect.objectContaining({
        context: 'kimops/validate',
        state: 'failure',
        description: '1 of 4 checks failed: at-most-40-nodes',
      }),
    ]);
  });
});

describe('generate: a pass that dies while updating a PR', () => {
  it('knows its own head and posts the missing status on the next pass', async () => {
    const { repo, forge, runtimes, run } = await landscape();
    const config = (await repo.readFile('main', 'kimops.yaml'))?.replace(
      'update: {mode: auto-merge}',
      'update: {mode: review, approvals: 1}',
    ) as string;
    await repo.commitFiles({
      branch: 'main',
      files: new Map([['kimops.yaml', config]]),
      message: 'review updates',
      author,
    });
    const scaled = (maximum: number) =>
      changedRuntime(runtimes, 0, (runtime) => {
        runtime.metadata.generation = maximum;
        (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum = maximum;
      });
    expect((await run({ runtimes: scaled(21) })).proposed.map((p) => p.action)).toEqual(['await-review']);

    // The next change is committed (and, for a remote, pushed), then the process dies before the status.
    const dying: typeof forge = new Proxy(forge, {
      get(target, property, receiver) {
        if (property === 'setCommitStatus') return () => Promise.reject(new Error('killed'));
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    await expect(run({ runtimes: scaled(22), forge: dying })).rejects.toThrow('killed');

    const resumed = await run({ runtimes: scaled(22) });
    expect(resumed.proposed.map((p) => p.action)).toEqual(['await-review']);
    const [open] = await openPulls(forge);
    const statuses = await forge.statuses(open?.headSha as string);
    expect(statuses.ok && statuses.value.map((s) => `${s.context} ${s.state}`)).toEqual(['kimops/validate success']);
    // And a pass after that writes nothing more.
    const head = await repo.resolve('kimops/pulls');
    await run({ runtimes: scaled(22) });
    expect(await repo.resolve('kimops/pulls')).toBe(head);
  });
});

describe('generate: a forge that refuses one PR', () => {
  it("fails that proposal only and says why; the other Shoots' PRs go on", async () => {
    const gitdir = `${dir.path}/repo.git`;
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const forge = localForge(repo);
    const refusing: typeof forge = new Proxy(forge, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'openPullRequest') return value;
        return (request: { branch: string }) =>
          request.branch === 'kimops/dev/c-78fcc25'
            ? Promise.resolve({
                ok: false,
                failure: { kind: 'invalid', message: 'Validation Failed: head sha can not be blank' },
              })
            : (value as (r: unknown) => unknown).call(target, request);
      },
    });
    const runtimes = [
      ...(await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes,
      ...(await readRuntimes(`${EXAMPLES}gcp.yaml`)).runtimes,
    ];
    const result = await generate({
      landscape: 'dev',
      settings: conversionSettingsOf(await readLandscape('dev')),
      runtimes,
      runtimesComplete: true,
      repo,
      forge: refusing,
      log: () => undefined,
    });
    expect(result.refused).toEqual([
      {
        branch: 'kimops/dev/c-78fcc25',
        message: expect.stringContaining('invalid: Validation Failed: head sha can not be blank'),
      },
    ]);
    expect(result.proposed.map((p) => `${p.shoot} ${p.action}`)).toEqual(['c-56a4813 auto-merge']);
  });

  it('ends the pass with a configuration error naming the forge when it refuses the credentials', async () => {
    const gitdir = `${dir.path}/repo.git`;
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const forge = localForge(repo);
    const locked: typeof forge = {
      ...forge,
      label: forge.label,
      findOpenPullRequest: async () => ({ ok: false, failure: { kind: 'unauthorized', message: 'Bad credentials' } }),
    };
    const runtimes = (await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes;
    const failure = await generate({
      landscape: 'dev',
      settings: conversionSettingsOf(await readLandscape('dev')),
      runtimes,
      runtimesComplete: true,
      repo,
      forge: locked,
      log: () => undefined,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toContain('credentials: Bad credentials; renew the token');
  });
});

describe('generate: a broken Shoot file on main', () => {
  it('proposes nothing for that Shoot, says how to fix it, and goes on with the others', async () => {
    const { repo, runtimes, run } = await landscape();
    const broken = runtimes[0]?.runtime.spec.shoot.name as string;
    await repo.commitFiles({
      branch: 'main',
      files: new Map([[`shoots/${broken}/shoot.yaml`, 'kind: Shoot\nspec: [unclosed\n']]),
      message: 'a bad hand edit',
      author,
    });
    const bumped = changedRuntime(runtimes, 1, (runtime) => {
      runtime.metadata.generation = 2;
      (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum += 1;
    });
    const result = await run({ runtimes: bumped });
    expect(result.failures).toEqual([
      expect.objectContaining({
        field: `shoots/${broken}/shoot.yaml`,
        message: expect.stringContaining(
          `restore the file on main (git revert the commit that broke it): kimops proposes nothing for ${broken} meanwhile`,
        ),
      }),
    ]);
    expect(result.proposed.map((p) => `${p.shoot} ${p.class}`)).toEqual([
      `${bumped[1]?.runtime.spec.shoot.name} update`,
    ]);
    // Gone from the Runtimes too: still not proposed for deletion while unreadable.
    const withoutIt = await run({ runtimes: bumped.slice(1) });
    expect(withoutIt.proposed).toEqual([]);
    expect(withoutIt.failures.map((f) => f.field)).toEqual([`shoots/${broken}/shoot.yaml`]);
  });
});
