// Issue 20's cut-over per Runtime, as KEB and Gardener see it. A landscape with `defaultLeader: kim` whose four
// Runtimes KEB created and a stand-in for KIM (test/helpers/kim-stand-in.ts: Shoots by server-side apply as field
// manager `kim`, KIM's status strings) brought to Ready; then kimops shadows the landscape (main holds every Shoot,
// marked `leader: kim`, and nothing is written to the KCP or the Garden), takes three Runtimes over one by one
// (label → generate's cut-over PR → merge → apply's take-over → backfill), carries a KEB update of a moved Runtime
// through Git (Pending → Ready, as today), hands one Runtime back to KIM and takes it over again. A recorder watches every Runtime
// status and every Shoot throughout; every kimops command reaches the KCP and the Garden through a recording proxy.
// What must hold: KEB never sees a state but Ready outside its own update (no Pending blip, no Failed); a moved
// Shoot's spec does not change, only kimops's ownership label and its own annotations are added; the Runtimes KIM
// still leads get no write from kimops (status, Events, Shoots, kubeconfig objects).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import {
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  LABEL_RUNTIME_ID,
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  SKR_APPLIED_TREE_ANNOTATION,
  KIM_FIELD_MANAGER,
} from '../../model/contract.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { readRuntimeStatus } from '../../model/runtime-status.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { LEADER_ANNOTATION, LEADER_LABEL } from '../../rules/leader.js';
import { kimops, expectOk } from '../helpers/cli.js';
import { startGardenProxy, writesSeen } from '../helpers/garden-proxy.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { KimStandIn } from '../helpers/kim-stand-in.js';
import { liveShoots } from '../helpers/live-shoots.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('cut-over');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;
const OIDC = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;
/** What a take-over may add to a Shoot besides the ownership label: the applier's markers (applier/README.md). */
const PLANNED_ANNOTATIONS = [APPLIED_COMMIT_ANNOTATION, APPLIED_TREE_ANNOTATION, SKR_APPLIED_TREE_ANNOTATION];

type LiveRuntime = Runtime & KubeObject & { metadata: Runtime['metadata'] & { generation?: number } };
type ManagedField = { manager?: string; operation?: string; subresource?: string };
type LiveShoot = Shoot & { metadata: Shoot['metadata'] & { generation?: number; managedFields?: ManagedField[] } };

/** One Runtime as KEB reads it at one resourceVersion. */
interface RuntimeSeen {
  name: string;
  resourceVersion: string;
  generation?: number;
  state?: string;
  provisioned?: string;
}

/** One Shoot at one resourceVersion: what a cut-over may and may not change. */
interface ShootSeen {
  name: string;
  resourceVersion: string;
  generation?: number;
  spec: unknown;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  appliers: string[];
}

/**
 * Watches the namespace's Runtimes and the project's Shoots from now on, recording every version of each (a
 * status write is one version): what KEB could have read, and what Gardener was given.
 */
async function startRecorder(kcpNamespace: string, gardenNamespace: string, signal: AbortSignal) {
  const runtimes: RuntimeSeen[] = [];
  const shoots: ShootSeen[] = [];
  const problems: string[] = [];
  const listedRuntimes = await env.kcp.listAll<LiveRuntime>({ ...RUNTIME, namespace: kcpNamespace });
  const listedShoots = await env.garden.listAll<KubeObject>({ ...SHOOT, namespace: gardenNamespace });
  if (!listedRuntimes.ok || !listedShoots.ok) throw new Error('recorder: cannot list the Runtimes or the Shoots');
  const seeRuntime = (runtime: LiveRuntime) => {
    const status = readRuntimeStatus(runtime.status);
    const provisioned = status.conditions?.find((c) => c.type === 'Provisioned');
    runtimes.push({
      name: runtime.metadata.name,
      resourceVersion: runtime.metadata.resourceVersion ?? '',
      ...(runtime.metadata.generation !== undefined && { generation: runtime.metadata.generation }),
      ...(status.state !== undefined && { state: status.state }),
      ...(provisioned && { provisioned: `${provisioned.reason}: ${provisioned.message}` }),
    });
  };
  const seeShoot = (object: KubeObject) => {
    const shoot = object as unknown as LiveShoot;
    shoots.push({
      name: shoot.metadata.name,
      resourceVersion: shoot.metadata.resourceVersion ?? '',
      ...(shoot.metadata.generation !== undefined && { generation: shoot.metadata.generation }),
      spec: structuredClone(shoot.spec),
      labels: { ...shoot.metadata.labels },
      annotations: { ...shoot.metadata.annotations },
      appliers: appliersOf(shoot),
    });
  };
  listedRuntimes.items.forEach(seeRuntime);
  listedShoots.items.forEach(seeShoot);
  const watching = [
    env.kcp.watch<LiveRuntime>(
      { ...RUNTIME, namespace: kcpNamespace },
      { resourceVersion: listedRuntimes.resourceVersion ?? '' },
      (event) => {
        if (event.type === 'ADDED' || event.type === 'MODIFIED') seeRuntime(event.object);
      },
      signal,
    ),
    env.garden.watch<KubeObject>(
      { ...SHOOT, namespace: gardenNamespace },
      { resourceVersion: listedShoots.resourceVersion ?? '' },
      (event) => {
        if (event.type === 'ADDED' || event.type === 'MODIFIED') seeShoot(event.object);
        if (event.type === 'DELETED') problems.push(`Shoot ${event.object.metadata.name} deleted`);
      },
      signal,
    ),
  ];
  for (const watch of watching)
    void watch.then((end) => {
      if (end.reason !== 'aborted') problems.push(`a recorder's watch ended: ${JSON.stringify(end)}`);
    });
  /** Waits until both watches have delivered the current version of every Runtime and Shoot. */
  const caughtUp = () =>
    eventually('the recorder to catch up', async () => {
      const now = await env.kcp.listAll<LiveRuntime>({ ...RUNTIME, namespace: kcpNamespace });
      const live = await env.garden.listAll<KubeObject>({ ...SHOOT, namespace: gardenNamespace });
      if (!now.ok || !live.ok) return undefined;
      const seen = (list: { name: string; resourceVersion: string }[], o: KubeObject) =>
        list.some((s) => s.name === o.metadata.name && s.resourceVersion === o.metadata.resourceVersion);
      return now.items.every((o) => seen(runtimes, o)) && live.items.every((o) => seen(shoots, o)) ? true : undefined;
    });
  return { runtimes, shoots, problems, caughtUp };
}

function appliersOf(object: { metadata: { managedFields?: unknown } }): string[] {
  return ((object.metadata.managedFields ?? []) as ManagedField[])
    .filter((entry) => entry.operation === 'Apply')
    .map((entry) => entry.manager ?? '')
    .sort();
}

/** The subject of a path: `/…/runtimes/<name>[/status]` → name; used to find writes about one Runtime or Shoot. */
function concerns(write: string, names: readonly string[]): boolean {
  return names.some((name) => new RegExp(`/${name}(/|\\?|$)`).test(write.split(' ')[1] ?? ''));
}

function git(gitdir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();
}

function shootOnMain(gitdir: string, shoot: string): Shoot {
  return parseYaml11(git(gitdir, 'show', `main:shoots/${shoot}/shoot.yaml`), shoot) as Shoot;
}

/** What `kimops pr show` prints of every pull request of the repo, by number. */
async function pullRequests(gitdir: string): Promise<string[]> {
  const shown: string[] = [];
  for (let number = 1; ; number++) {
    const one = await kimops(['pr', 'show', '--repo', gitdir, String(number)]);
    if (one.code !== 0) return shown;
    shown.push(one.stdout);
  }
}

describe('cut-over per Runtime, with KIM leading the rest', () => {
  it('moves Runtimes from KIM to kimops one by one and one back, KEB seeing Ready throughout', async () => {
    const controller = new AbortController();
    const kcpProxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'kcp.kubeconfig'), dir: dir.path });
    const gardenProxy = await startGardenProxy({
      kubeconfig: join(env.stateDir, 'garden.kubeconfig'),
      dir: dir.path,
    });
    const suffix = randomBytes(3).toString('hex');
    const admins: string[] = [];
    const clientIDs: string[] = [];
    try {
      // A landscape being taken over: KIM leads every Runtime without the label.
      const shipped = await landscapeForProject(dir, 'landscape', 'stage', project);
      const text = readFileSync(shipped, 'utf8').replace(/^name: stage$/m, 'name: stage\ndefaultLeader: kim');
      expect(text).toContain('defaultLeader: kim');
      const landscapeFile = await dir.write('landscape/landscape.yaml', text);
      const landscape = parseLandscape(text, landscapeFile, 'stage');
      const gitdir = join(dir.path, 'landscape.git');
      expectOk(await kimops(['init', '--landscape', landscapeFile, gitdir]), 'init');
      const namespace = await createTestNamespace(env.kcp, 'kcp-cut-');
      const kim = new KimStandIn({ kcp: env.kcp, garden: env.garden, kcpNamespace: namespace, landscape });
      const { reconciled } = liveShoots(env.garden, project);

      // KEB creates four Runtimes (own IDs, administrators and OIDC clients: the plane is every test's SKR).
      const runtimes = ['aws.yaml', 'gcp.yaml', 'azure.yaml', 'aws.yaml'].map((file, i) => {
        const shoot = `c${suffix}${i}`;
        const runtime = exampleRuntime(file, shoot) as LiveRuntime;
        runtime.metadata = {
          ...runtime.metadata,
          namespace,
          name: `rt-${shoot}`,
          labels: { ...runtime.metadata.labels, [LABEL_RUNTIME_ID]: randomUUID() },
        };
        const admin = `admin@${shoot}.example.com`;
        admins.push(admin);
        runtime.spec.security.administrators = [admin];
        for (const oidc of runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig ?? []) {
          oidc.clientID = `${shoot}-client`;
          clientIDs.push(oidc.clientID);
        }
        return {
          shoot,
          name: runtime.metadata.name,
          runtimeID: runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '',
          runtime,
        };
      });
      for (const { runtime } of runtimes) {
        const created = await env.kcp.create({ ...runtime, ...RUNTIME } as unknown as KubeObject);
        expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
      }
      const ref = (name: string) => ({ ...RUNTIME, namespace, name });
      const getRuntime = async (name: string) => {
        const got = await env.kcp.get<LiveRuntime>(ref(name));
        if (!got.ok) throw new Error(describeFailure(got));
        return got.body;
      };
      const stateOf = async (name: string) => readRuntimeStatus((await getRuntime(name)).status).state;
      /** The state KEB reads, and on a mismatch the conditions that explain it. */
      const expectState = async (name: string, state: string) => {
        const status = readRuntimeStatus((await getRuntime(name)).status);
        const why = (status.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
        expect(status.state === state ? state : `${status.state}\n${why.join('\n')}`, `state of ${name}`).toBe(state);
      };
      const allReadyUnderKim = () =>
        eventually(
          'KIM to bring every Runtime it leads to Ready',
          async () => {
            await kim.reconcileOnce();
            const states = await Promise.all(runtimes.map(({ name }) => stateOf(name)));
            return states.every((s) => s === 'Ready') ? true : undefined;
          },
          90_000,
          200,
        );
      await allReadyUnderKim();
      for (const { shoot } of runtimes) {
        const live = (await reconciled(shoot)) as LiveShoot;
        // KIM's Shoot: applied by field manager kim only, without kimops's ownership label.
        expect(appliersOf(live)).toEqual([KIM_FIELD_MANAGER]);
        expect(live.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
      }

      const recorder = await startRecorder(namespace, project.namespace, controller.signal);
      const args = {
        generate: [
          'generate',
          ...['--landscape', landscapeFile, '--repo', gitdir, '--kcp-namespace', namespace],
          ...['--kcp-kubeconfig', kcpProxy.kubeconfigPath, '--garden-kubeconfig', gardenProxy.kubeconfigPath, '--once'],
        ],
        apply: [
          'apply',
          ...['--landscape', landscapeFile, '--repo', gitdir, '--garden-kubeconfig', gardenProxy.kubeconfigPath],
          '--once',
        ],
        backfill: [
          'backfill',
          ...['--landscape', landscapeFile, '--kcp-namespace', namespace],
          ...['--kcp-kubeconfig', kcpProxy.kubeconfigPath, '--garden-kubeconfig', gardenProxy.kubeconfigPath, '--once'],
        ],
      };
      const label = async (name: string, leader: 'kim' | 'kimops') => {
        const patched = await env.kcp.patch(ref(name), { metadata: { labels: { [LEADER_LABEL]: leader } } });
        expect(patched.ok ? 'labelled' : describeFailure(patched)).toBe('labelled');
      };
      /** One generate pass, then the newest PR's text; the PR merged (auto-merged, or by a reviewer when it waits). */
      const generateAndMerge = async (what: string, expectedClass: string) => {
        const before = (await pullRequests(gitdir)).length;
        const generated = await kimops(args.generate);
        expectOk(generated, `generate (${what})`);
        const prs = await pullRequests(gitdir);
        expect(prs.length, `one PR for ${what}`).toBe(before + 1);
        const pr = prs.at(-1) ?? '';
        expect(pr, `the PR of ${what}`).toMatch(new RegExp(`^labels: (.*, )?kimops:${expectedClass}(,|$)`, 'm'));
        // A cut-over whose live Shoot matches main auto-merges (the design); a reviewer merges it otherwise, and
        // the soft assertion reports that it waited.
        const merged = /\[merged\]/.test(pr.split('\n')[0] ?? '');
        expect.soft(merged ? 'auto-merged' : pr, `${what} auto-merges`).toBe('auto-merged');
        if (!merged) {
          const number = /^#(\d+)/.exec(pr)?.[1] ?? '';
          expectOk(await kimops(['pr', 'approve', '--repo', gitdir, '--as', 'sre', number]), 'pr approve');
          expectOk(await kimops(['pr', 'merge', '--repo', gitdir, '--as', 'sre', number]), 'pr merge');
        }
        return pr;
      };

      // 1. The shadow: main holds all four, marked as KIM's; nothing is written to the KCP or the Garden.
      const kcpFrom = kcpProxy.requests.length;
      const gardenFrom = gardenProxy.requests.length;
      const shadow = await kimops(args.generate);
      expectOk(shadow, 'the shadow generate');
      for (const { shoot } of runtimes) {
        expect(shootOnMain(gitdir, shoot).metadata.annotations?.[LEADER_ANNOTATION], `main's ${shoot}`).toBe('kim');
      }
      expect(writesSeen(kcpProxy, kcpFrom), 'KCP writes of the shadow generate').toEqual([]);
      expect(writesSeen(gardenProxy, gardenFrom), 'Garden writes of the shadow generate').toEqual([]);
      for (const pr of await pullRequests(gitdir)) expect(pr).toMatch(/^labels: (.*, )?kimops:shadow(,|$)/m);
      for (const { name } of runtimes) {
        const annotations = (await getRuntime(name)).metadata.annotations ?? {};
        expect(Object.keys(annotations).filter((k) => k.startsWith('kimops.kyma-project.io/'))).toEqual([]);
      }
      const beforeCutOver = new Map<string, LiveShoot>();
      for (const { shoot } of runtimes) beforeCutOver.set(shoot, (await reconciled(shoot)) as LiveShoot);

      // 2. Three Runtimes move to kimops, one by one; the fourth stays with KIM.
      const moved: typeof runtimes = [];
      const movedAt = new Map<string, number>();
      for (const runtime of runtimes.slice(0, 3)) {
        const kcpStart = kcpProxy.requests.length;
        const gardenStart = gardenProxy.requests.length;
        movedAt.set(runtime.name, kim.writes.length);
        await label(runtime.name, 'kimops');
        expect(await kim.reconcileOnce(), 'KIM skips a Runtime labelled for kimops').not.toContain(
          `${namespace}/${runtime.name}`,
        );
        await generateAndMerge(`the take-over of ${runtime.shoot}`, 'cut-over');
        expect(shootOnMain(gitdir, runtime.shoot).metadata.annotations?.[LEADER_ANNOTATION]).toBeUndefined();
        const applied = await kimops(args.apply);
        expectOk(applied, `apply (take-over of ${runtime.shoot})`);
        expect(applied.stdout).toContain(`took over Shoot ${runtime.shoot}`);
        const taken = (await reconciled(runtime.shoot)) as LiveShoot;
        expect(taken.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
        expect(appliersOf(taken)).toContain('kimops');
        expectOk(await kimops(args.backfill), `backfill (after the take-over of ${runtime.shoot})`);
        await expectState(runtime.name, 'Ready');
        moved.push(runtime);
        await kim.reconcileOnce();
        // kimops wrote nothing about the Runtimes KIM still leads.
        const kimLed = runtimes.filter((r) => !moved.includes(r));
        const names = kimLed.flatMap((r) => [r.name, r.shoot, r.runtimeID, `kubeconfig-${r.runtimeID}`]);
        const foreign = [...writesSeen(kcpProxy, kcpStart), ...writesSeen(gardenProxy, gardenStart)].filter((w) =>
          concerns(w, names),
        );
        expect(foreign, `kimops's writes about KIM's Runtimes while moving ${runtime.shoot}`).toEqual([]);
      }
      await recorder.caughtUp();

      // KEB saw Ready, and only Ready, on every Runtime since KIM had made them Ready.
      for (const { name } of runtimes) {
        const states = recorder.runtimes.filter((r) => r.name === name).map((r) => r.state);
        expect(
          states.filter((s) => s !== 'Ready'),
          `states KEB could read of ${name}: ${JSON.stringify(recorder.runtimes.filter((r) => r.name === name))}`,
        ).toEqual([]);
      }
      // A moved Shoot: the same spec and generation; only kimops's ownership label and its own annotations added.
      for (const { shoot } of moved) {
        const before = beforeCutOver.get(shoot) as LiveShoot;
        const versions = recorder.shoots.filter((s) => s.name === shoot);
        for (const version of versions) {
          expect(version.spec, `spec of ${shoot} at ${version.resourceVersion}`).toEqual(before.spec);
          expect(version.generation).toBe(before.metadata.generation);
        }
        const last = versions.at(-1) as ShootSeen;
        expect(last.labels).toEqual({ ...before.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE });
        const added = Object.keys(last.annotations).filter((k) => !(k in (before.metadata.annotations ?? {})));
        expect(
          added.filter((k) => !PLANNED_ANNOTATIONS.includes(k)),
          `annotations added to ${shoot}`,
        ).toEqual([]);
        for (const [key, value] of Object.entries(before.metadata.annotations ?? {}))
          expect(last.annotations[key], `annotation ${key} of ${shoot}`).toBe(value);
      }
      // The Runtime KIM still leads: its Shoot applied by kim alone, no Event of kimops's about it.
      const still = runtimes[3] as (typeof runtimes)[number];
      expect(recorder.shoots.filter((s) => s.name === still.shoot).flatMap((s) => s.appliers)).not.toContain('kimops');
      const events = await env.kcp.listAll<KubeObject & { involvedObject?: { name?: string } }>({
        apiVersion: 'v1',
        kind: 'Event',
        namespace,
      });
      expect(events.ok).toBe(true);
      if (events.ok)
        expect(events.items.filter((e) => e.involvedObject?.name === still.name).map((e) => e.metadata.name)).toEqual(
          [],
        );

      // 3. KEB updates a moved Runtime: Git carries it, KEB sees Pending, then Ready, as on any landscape kimops leads.
      const updated = moved[0] as (typeof runtimes)[number];
      const patched = await env.kcp.patch<LiveRuntime>(
        ref(updated.name),
        [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: 25 }],
        CONTENT_TYPE.jsonPatch,
      );
      expect(patched.ok ? 'patched' : describeFailure(patched)).toBe('patched');
      const generation = patched.ok ? Number(patched.body.metadata.generation) : 0;
      expect(await kim.reconcileOnce()).not.toContain(`${namespace}/${updated.name}`);
      expectOk(await kimops(args.backfill), 'backfill (KEB update)');
      await expectState(updated.name, 'Pending');
      await generateAndMerge(`KEB's update of ${updated.shoot}`, 'update');
      expectOk(await kimops(args.apply), 'apply (KEB update)');
      const scaled = await reconciled(updated.shoot);
      expect(scaled.spec.provider.workers[0]?.maximum).toBe(25);
      // The applier configures the Shoot's cluster on its first sync after Gardener reconciled the Shoot (--watch:
      // its next sync), as on any landscape kimops leads.
      expectOk(await kimops(args.apply), 'apply (the SKR after the update)');
      expectOk(await kimops(args.backfill), 'backfill (KEB update applied)');
      await expectState(updated.name, 'Ready');
      await recorder.caughtUp();
      const afterUpdate = recorder.runtimes.filter((r) => r.name === updated.name && (r.generation ?? 0) >= generation);
      expect(afterUpdate.map((r) => r.state)).not.toContain('Failed');
      expect(afterUpdate.map((r) => r.state)).toContain('Pending');
      expect(afterUpdate.at(-1)?.state).toBe('Ready');
      // KIM wrote nothing for a Runtime from the moment it was labelled for kimops.
      for (const m of moved) {
        const since = kim.writes.slice(movedAt.get(m.name) ?? 0).filter((w) => w.runtime === `${namespace}/${m.name}`);
        expect(since, `KIM's writes for ${m.name} after it moved`).toEqual([]);
      }

      // 4. One Runtime goes back to KIM: the hand-back gives its Shoot's fields back to kim, drops kimops's label.
      const back = moved[1] as (typeof runtimes)[number];
      const writesBefore = kim.writes.length;
      await label(back.name, 'kim');
      await generateAndMerge(`the hand-back of ${back.shoot}`, 'cut-over');
      expect(shootOnMain(gitdir, back.shoot).metadata.annotations?.[LEADER_ANNOTATION]).toBe('kim');
      expectOk(await kimops(args.apply), `apply (hand-back of ${back.shoot})`);
      const handedBack = (await reconciled(back.shoot)) as LiveShoot;
      expect(handedBack.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
      expect(appliersOf(handedBack)).toEqual([KIM_FIELD_MANAGER]);
      expect(Object.keys(handedBack.metadata.annotations ?? {}).filter((k) => PLANNED_ANNOTATIONS.includes(k))).toEqual(
        [],
      );
      expect(handedBack.spec).toEqual(beforeCutOver.get(back.shoot)?.spec);
      expect(handedBack.metadata.generation).toBe(beforeCutOver.get(back.shoot)?.metadata.generation);
      // KIM leads it again, and carries KEB's next update of it: Pending, then Ready, written by KIM; kimops only
      // shadows the change in the repo (a shadow PR) and writes nothing for it to the KCP or the Garden.
      expect(await kim.reconcileOnce()).toContain(`${namespace}/${back.name}`);
      const kcpStart = kcpProxy.requests.length;
      const gardenStart = gardenProxy.requests.length;
      const again = await env.kcp.patch(
        ref(back.name),
        [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: 24 }],
        CONTENT_TYPE.jsonPatch,
      );
      expect(again.ok ? 'patched' : describeFailure(again)).toBe('patched');
      await kim.reconcileOnce();
      await expectState(back.name, 'Pending');
      await generateAndMerge(`KEB's update of ${back.shoot}, led by KIM again`, 'shadow');
      expectOk(await kimops(args.apply), `apply (KIM's ${back.shoot} changed)`);
      expectOk(await kimops(args.backfill), `backfill (KIM's ${back.shoot} changed)`);
      const names = [back.name, back.shoot, back.runtimeID, `kubeconfig-${back.runtimeID}`];
      expect(
        [...writesSeen(kcpProxy, kcpStart), ...writesSeen(gardenProxy, gardenStart)].filter((w) => concerns(w, names)),
        `kimops's writes about ${back.shoot} after the hand-back`,
      ).toEqual([]);
      await allReadyUnderKim();
      expect((await reconciled(back.shoot)).spec.provider.workers[0]?.maximum).toBe(24);
      expect(
        kim.writes
          .slice(writesBefore)
          .filter((w) => w.runtime === `${namespace}/${back.name}`)
          .map((w) => w.what),
      ).toContain('shoot-patch');
      // 5. Taken over once more (a hand-back is a way back, not a dead end): Ready throughout, as the first time.
      const retakenFrom = recorder.runtimes.length;
      await label(back.name, 'kimops');
      await generateAndMerge(`the second take-over of ${back.shoot}`, 'cut-over');
      expectOk(await kimops(args.apply), `apply (second take-over of ${back.shoot})`);
      expect((await reconciled(back.shoot)).metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
      expectOk(await kimops(args.backfill), `backfill (after the second take-over of ${back.shoot})`);
      await expectState(back.name, 'Ready');
      await recorder.caughtUp();
      expect(
        recorder.runtimes.slice(retakenFrom).filter((r) => r.name === back.name && r.state !== 'Ready'),
        `states KEB could read of ${back.name} during its second take-over`,
      ).toEqual([]);

      // The Runtime KIM led throughout: its Shoot applied by kim alone, and Ready whenever KEB looked.
      await recorder.caughtUp();
      expect(recorder.shoots.filter((s) => s.name === still.shoot).flatMap((s) => s.appliers)).not.toContain('kimops');
      // And the Runtimes KEB did not change (one moved, one KIM's throughout): Ready whenever KEB looked.
      for (const quiet of [moved[2], still])
        expect(recorder.runtimes.filter((r) => r.name === quiet?.name && r.state !== 'Ready')).toEqual([]);
      expect(recorder.problems).toEqual([]);
      expect(simulator.problems).toEqual([]);
    } finally {
      controller.abort();
      await kcpProxy.close();
      await gardenProxy.close();
      // The plane is every test's SKR: the bindings and the OIDC resource kimops put there for these Runtimes go.
      for (const admin of admins) {
        const name = `admin-${createHash('sha256').update(admin).digest('hex').slice(0, 10)}`;
        await env.kcp.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name });
      }
      const oidc = await env.kcp.get<KubeObject & { spec?: { clientID?: string } }>({ ...OIDC, name: 'kyma-oidc-0' });
      if (oidc.ok && clientIDs.includes(oidc.body.spec?.clientID ?? ''))
        await env.kcp.delete({ ...OIDC, name: 'kyma-oidc-0' });
    }
  }, 300_000);
});
