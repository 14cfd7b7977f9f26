// deploy/ against the real API (issue 16): every overlay and the Garden grants server-side applied, so
// kube-apiserver and gardener-apiserver validate each object; then the KEB scenario run with the tokens of the
// ServiceAccounts the manifests create, so each loop has exactly the RBAC the manifests grant and no more; calls
// outside it refused; each loop's Lease reachable; the status page's identity reads and is refused every write. The
// manifests are moved into this test's own namespaces
// (test/helpers/deploy.ts's retarget changes namespaces only), the Garden grants into the test project's the way
// an SRE sets it (the kustomization's `namespace:`).
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { packagePath } from '../../model/package-root.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { kebLifecycle, useKebPlane, type PipelineIdentities } from '../e2e/keb-lifecycle.js';
import {
  applyAll,
  kustomizeBuild,
  mayI,
  objectPath,
  retarget,
  serviceAccountToken,
  tokenKubeconfig,
} from '../helpers/deploy.js';
import { createTestNamespace } from '../helpers/projects.js';
import { eventually } from '../helpers/testenv.js';

const plane = useKebPlane('deploy');
const { env, project } = plane;

const LOOPS = { generator: 'generate', applier: 'apply', backfiller: 'backfill' } as const;
type Identity = keyof typeof LOOPS;
const IDENTITIES = Object.keys(LOOPS) as Identity[];

/** kimops-system and kcp-system of one overlay, as this test names them. */
interface Placed {
  kimops: string;
  kcp: string;
  objects: KubeObject[];
}

/** Installs ServiceMonitor's and PrometheusRule's CRDs (shared by every test: apply is idempotent). */
async function installMonitoringCrds(): Promise<void> {
  const crds = ['servicemonitors', 'prometheusrules'].map((plural) =>
    readObject(packagePath('test', 'fixtures', 'prometheus-operator', `monitoring.coreos.com_${plural}.yaml`)),
  );
  await applyAll(env.kcp, crds);
  for (const crd of crds)
    await eventually(`CRD ${crd.metadata.name} established`, async () => {
      const got = await env.kcp.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        objectPath(crd),
      );
      return got.ok && got.body.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
        ? true
        : undefined;
    });
}

/** A file of one object (the CRD fixtures are copied as published, not a kustomization). */
function readObject(path: string): KubeObject {
  const [object] = parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => document.toJSON() as KubeObject | null)
    .filter((value) => value !== null);
  if (!object) throw new Error(`${path} holds no object`);
  return object;
}

/** One overlay built, moved into fresh namespaces and applied. */
async function placeOverlay(landscape: string): Promise<Placed> {
  const kcp = await createTestNamespace(env.kcp, 'kcp-dep-');
  const kimops = `kimops-${randomBytes(4).toString('hex')}`;
  const objects = retarget(kustomizeBuild(packagePath('deploy', 'overlays', landscape)), {
    'kimops-system': kimops,
    'kcp-system': kcp,
  });
  await applyAll(env.kcp, objects);
  return { kimops, kcp, objects };
}

/** deploy/garden with its namespace set to the test project's, as the SRE does, built and applied. */
async function placeGarden(namespace: string): Promise<KubeObject[]> {
  const copy = join(setupDir, 'garden');
  cpSync(packagePath('deploy', 'garden'), copy, { recursive: true });
  const file = join(copy, 'kustomization.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: .*$/m, `namespace: ${namespace}`));
  const objects = kustomizeBuild(copy);
  await applyAll(env.garden, objects);
  return objects;
}

/** The tokens' kubeconfigs and the garden copy, made once for all tests (useTempDir's folder is per test). */
let setupDir = '';
/** The ServiceAccounts' tokens: no log line may hold one. */
const tokens: string[] = [];
const remember = (token: string) => (tokens.push(token), token);
let stage: Placed;
let identities: PipelineIdentities;
const kcpAs = {} as Record<Identity, KubeClient>;
const gardenAs = {} as Record<Identity, KubeClient>;
/** The status page's ServiceAccounts (no loop of the KEB scenario runs as them). */
const statusAs = {} as { kcp: KubeClient; garden: KubeClient };

beforeAll(async () => {
  setupDir = mkdtempSync(join(tmpdir(), 'kimops-deploy-setup-'));
  await installMonitoringCrds();
  stage = await placeOverlay('stage');
  const garden = await placeGarden(project.namespace);
  expect(garden.filter((o) => o.metadata.namespace === undefined).map((o) => o.metadata.name)).toContain(
    `kimops:${project.namespace}:backfiller`,
  );
  const files = {} as Record<Identity, { kcp: string; garden: string }>;
  for (const identity of IDENTITIES) {
    const name = `kimops-${identity}`;
    const kcp = tokenKubeconfig(
      join(setupDir, `${identity}.kcp.kubeconfig`),
      join(env.stateDir, 'kcp.kubeconfig'),
      remember(await serviceAccountToken(env.kcp, stage.kimops, name)),
    );
    const gardenConfig = tokenKubeconfig(
      join(setupDir, `${identity}.garden.kubeconfig`),
      join(env.stateDir, 'garden.kubeconfig'),
      remember(await serviceAccountToken(env.garden, project.namespace, name)),
    );
    files[identity] = { kcp, garden: gardenConfig };
    kcpAs[identity] = KubeClient.fromKubeconfigFile(kcp);
    gardenAs[identity] = KubeClient.fromKubeconfigFile(gardenConfig);
  }
  for (const [side, client, namespace, admin] of [
    ['kcp', env.kcp, stage.kimops, 'kcp.kubeconfig'],
    ['garden', env.garden, project.namespace, 'garden.kubeconfig'],
  ] as const) {
    const token = await serviceAccountToken(client, namespace, 'kimops-status');
    const file = tokenKubeconfig(join(setupDir, `status.${side}.kubeconfig`), join(env.stateDir, admin), token);
    statusAs[side] = KubeClient.fromKubeconfigFile(file);
  }
  identities = {
    generator: files.generator,
    applier: { garden: files.applier.garden },
    backfiller: files.backfiller,
  };
}, 120_000);
afterAll(() => {
  rmSync(setupDir, { recursive: true, force: true });
  for (const client of [...Object.values(kcpAs), ...Object.values(gardenAs), ...Object.values(statusAs)])
    client.close();
});

describe('deploy/ on the real API', () => {
  it('dev and prod apply too, with the Lease names and replicas of their landscape', async () => {
    for (const landscape of ['dev', 'prod']) {
      const placed = await placeOverlay(landscape);
      const leaseRoles = placed.objects.filter((o) => o.kind === 'Role' && o.metadata.name?.endsWith('-lease'));
      expect(
        leaseRoles.map(
          (role) => (role as unknown as { rules: { resourceNames?: string[] }[] }).rules[0]?.resourceNames,
        ),
      ).toEqual(IDENTITIES.map((identity) => [`kimops-${LOOPS[identity]}-${landscape}`]));
      const deployments = await env.kcp.request<{ items: { spec: { replicas: number } }[] }>(
        'GET',
        `/apis/apps/v1/namespaces/${placed.kimops}/deployments`,
      );
      expect(
        deployments.ok ? deployments.body.items.map((d) => d.spec.replicas) : describeFailure(deployments),
      ).toEqual([2, 2, 2, 2]);
    }
  });

  it('outside its RBAC every identity is refused', async () => {
    const runtimes = { group: 'infrastructuremanager.kyma-project.io', resource: 'runtimes', namespace: stage.kcp };
    const shoots = { group: 'core.gardener.cloud', resource: 'shoots', namespace: project.namespace };
    // What each may do (a sample), so the refusals below are RBAC's and not a broken token.
    expect(await mayI(kcpAs.generator, { ...runtimes, verb: 'list' })).toBe(true);
    expect(await mayI(kcpAs.backfiller, { ...runtimes, verb: 'update', subresource: 'status' })).toBe(true);
    expect(await mayI(gardenAs.applier, { ...shoots, verb: 'create' })).toBe(true);
    expect(await mayI(gardenAs.backfiller, { ...shoots, verb: 'create', subresource: 'adminkubeconfig' })).toBe(true);

    // The generator reads Shoots but writes none, and reads no Secret on either side.
    expect(await mayI(gardenAs.generator, { ...shoots, verb: 'patch' })).toBe(false);
    expect(await mayI(gardenAs.generator, { ...shoots, verb: 'create', subresource: 'adminkubeconfig' })).toBe(false);
    expect(await mayI(kcpAs.generator, { group: '', resource: 'secrets', namespace: stage.kcp, verb: 'list' })).toBe(
      false,
    );
    expect(await mayI(kcpAs.generator, { ...runtimes, verb: 'update', subresource: 'status' })).toBe(false);
    // The applier never touches the KCP's Runtimes; of the Garden's Secrets it lists the registry caches' copies (by
    // label, for their cleanup) but watches none; the generator reads none.
    for (const verb of ['get', 'list', 'patch', 'delete'])
      expect(await mayI(kcpAs.applier, { ...runtimes, verb })).toBe(false);
    const gardenSecrets = { group: '', resource: 'secrets', namespace: project.namespace };
    expect(await mayI(gardenAs.applier, { ...gardenSecrets, verb: 'list' })).toBe(true);
    expect(await mayI(gardenAs.applier, { ...gardenSecrets, verb: 'watch' })).toBe(false);
    expect(await mayI(gardenAs.generator, { ...gardenSecrets, verb: 'get' })).toBe(false);
    // The backfiller creates, patches and deletes no Shoot.
    for (const verb of ['create', 'patch', 'delete'])
      expect(await mayI(gardenAs.backfiller, { ...shoots, verb })).toBe(false);
    // Nothing outside the namespaces the manifests name.
    expect(await mayI(kcpAs.backfiller, { ...runtimes, namespace: 'kcp-system', verb: 'list' })).toBe(false);

    // And the real calls: 403 from the API servers themselves (gardener-apiserver's delegated authorization too).
    const refusedShootWrite = await gardenAs.generator.request(
      'PATCH',
      `/apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots/any`,
      {
        body: { metadata: { annotations: { x: 'y' } } },
        contentType: 'application/merge-patch+json',
      },
    );
    expect(refusedShootWrite.ok ? 200 : refusedShootWrite.status).toBe(403);
    const refusedSecrets = await kcpAs.generator.request('GET', `/api/v1/namespaces/${stage.kcp}/secrets`);
    expect(refusedSecrets.ok ? 200 : refusedSecrets.status).toBe(403);
    const refusedRuntimes = await kcpAs.applier.request(
      'GET',
      `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${stage.kcp}/runtimes`,
    );
    expect(refusedRuntimes.ok ? 200 : refusedRuntimes.status).toBe(403);
    const refusedCreate = await gardenAs.backfiller.request(
      'POST',
      `/apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots`,
      { body: { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'nope' }, spec: {} } },
    );
    expect(refusedCreate.ok ? 200 : refusedCreate.status).toBe(403);
  });

  it('the status identity reads the Runtimes and the Shoots, and is refused every write', async () => {
    const runtimes = { group: 'infrastructuremanager.kyma-project.io', resource: 'runtimes', namespace: stage.kcp };
    const kcpSecrets = { group: '', resource: 'secrets', namespace: stage.kcp };
    const shoots = { group: 'core.gardener.cloud', resource: 'shoots', namespace: project.namespace };
    const report = { group: '', resource: 'configmaps', namespace: project.namespace, name: 'kimops-apply-report' };
    for (const verb of ['get', 'list', 'watch']) {
      expect(await mayI(statusAs.kcp, { ...runtimes, verb }), `runtimes ${verb}`).toBe(true);
      expect(await mayI(statusAs.garden, { ...shoots, verb }), `shoots ${verb}`).toBe(true);
    }
    expect(await mayI(statusAs.kcp, { ...kcpSecrets, verb: 'list' })).toBe(true);
    const listed = [
      await statusAs.kcp.request(
        'GET',
        `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${stage.kcp}/runtimes`,
      ),
      await statusAs.garden.request('GET', `/apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots`),
    ];
    expect(listed.map((answer) => (answer.ok ? 200 : describeFailure(answer)))).toEqual([200, 200]);

    // No write of any kind, on anything it reads or anything else kimops writes; no Lease (it takes none).
    const writes = ['create', 'update', 'patch', 'delete', 'deletecollection'];
    for (const verb of writes) {
      for (const attributes of [runtimes, kcpSecrets, { ...runtimes, subresource: 'status' }])
        expect(await mayI(statusAs.kcp, { ...attributes, verb }), `KCP ${attributes.resource} ${verb}`).toBe(false);
      for (const attributes of [shoots, report, { ...report, name: undefined }])
        expect(await mayI(statusAs.garden, { ...attributes, verb }), `Garden ${attributes.resource} ${verb}`).toBe(
          false,
        );
    }
    const leases = { group: 'coordination.k8s.io', resource: 'leases', namespace: stage.kimops };
    for (const verb of ['get', 'create', 'update'])
      expect(await mayI(statusAs.kcp, { ...leases, verb }), `leases ${verb}`).toBe(false);
    expect(await mayI(statusAs.garden, { ...shoots, verb: 'create', subresource: 'adminkubeconfig' })).toBe(false);
    // No ConfigMap or Secret of the Garden (the Shoots' companions); nothing outside its namespaces.
    expect(await mayI(statusAs.garden, { ...report, verb: 'get' })).toBe(false);
    expect(await mayI(statusAs.garden, { ...report, name: undefined, verb: 'list' })).toBe(false);
    expect(
      await mayI(statusAs.garden, { group: '', resource: 'secrets', namespace: project.namespace, verb: 'list' }),
    ).toBe(false);
    expect(await mayI(statusAs.kcp, { ...runtimes, namespace: 'kcp-system', verb: 'list' })).toBe(false);

    // And the real calls: 403 from kube-apiserver and gardener-apiserver.
    const refused = [
      await statusAs.kcp.request(
        'PATCH',
        `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${stage.kcp}/runtimes/any`,
        { body: { metadata: { annotations: { x: 'y' } } }, contentType: 'application/merge-patch+json' },
      ),
      await statusAs.kcp.request('DELETE', `/api/v1/namespaces/${stage.kcp}/secrets/kubeconfig-any`),
      await statusAs.garden.request(
        'POST',
        `/apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots`,
        {
          body: { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'nope' }, spec: {} },
        },
      ),
      await statusAs.garden.request('DELETE', `/api/v1/namespaces/${project.namespace}/configmaps/kimops-apply-report`),
    ];
    expect(refused.map((answer) => (answer.ok ? 200 : answer.status))).toEqual([403, 403, 403, 403]);
  });

  it("each identity gets, creates and updates its own Lease, and no other loop's", async () => {
    for (const identity of IDENTITIES) {
      const client = kcpAs[identity];
      const name = `kimops-${LOOPS[identity]}-stage`;
      const path = `/apis/coordination.k8s.io/v1/namespaces/${stage.kimops}/leases`;
      const missing = await client.request('GET', `${path}/${name}`);
      expect(missing.ok ? 200 : missing.status).toBe(404);
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: stage.kimops },
        spec: { holderIdentity: `${identity}-0`, leaseDurationSeconds: 15 },
      };
      const created = await client.request<KubeObject>('POST', path, { body: lease });
      expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
      const got = await client.request<KubeObject>('GET', `${path}/${name}`);
      if (!got.ok) throw new Error(describeFailure(got));
      const updated = await client.request('PUT', `${path}/${name}`, {
        body: { ...got.body, spec: { ...lease.spec, holderIdentity: `${identity}-1` } },
      });
      expect(updated.ok ? 'updated' : describeFailure(updated)).toBe('updated');
      for (const other of IDENTITIES.filter((i) => i !== identity)) {
        const foreign = await client.request('GET', `${path}/kimops-${LOOPS[other]}-stage`);
        expect(foreign.ok ? 200 : foreign.status).toBe(403);
      }
      expect(
        await mayI(client, { group: 'coordination.k8s.io', resource: 'leases', namespace: stage.kcp, verb: 'create' }),
      ).toBe(false);
    }
  });

  it('the KEB scenario passes with the ServiceAccounts of the manifests; their JSON logs hold no credential', async () => {
    const outputs = await kebLifecycle({
      ...plane,
      identities,
      kcpNamespace: stage.kcp,
      extraArgs: ['--log-format', 'json', '--log-level', 'debug'],
    });
    const lines = outputs.flatMap((o) => `${o.stdout}${o.stderr}`.split('\n')).filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines)
      expect(JSON.parse(line), line).toMatchObject({
        time: expect.any(String),
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        component: expect.stringMatching(/^(generator|applier|backfiller)$/),
        landscape: 'stage',
      });
    const text = lines.join('\n');
    expect(tokens).toHaveLength(6);
    for (const token of tokens) expect(text.includes(token), 'a ServiceAccount token in a log line').toBe(false);
    // Nor any part of a kubeconfig (the backfiller writes the customers' kubeconfig Secrets).
    expect(text).not.toMatch(/client-key-data|client-certificate-data|BEGIN [A-Z ]*(KEY|CERTIFICATE)|eyJ[\w-]{10,}\./);
    // The Runtime's lines name it.
    expect(text).toMatch(/"runtime":"[^"]+\/rt-/);
  }, 240_000);
});
