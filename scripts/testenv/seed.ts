// Seeds a running test control plane: the KCP side (kcp-system, the Runtime and GardenerCluster
// CRDs, KALM's AuditLog CRD), the SKR side (the OpenIDConnect CRD) and a realistic garden (garden-seed.ts). Run by up.sh once the plane is ready; safe to run
// again (server-side apply; the Seeds' status is written again). Usage: tsx scripts/testenv/seed.ts <state dir>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CONTENT_TYPE, KubeClient, refOf } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import {
  gardenSeedObjects,
  kcpSeedObjects,
  loadGardenSeedInput,
  readySeedStatus,
  skrSeedObjects,
} from './garden-seed.js';
import { rfc3339Seconds } from '../../model/go-time.js';

/**
 * Kinds that must exist before others can be admitted (a binding's Secret, a Seed's DNS provider
 * registration); objects of one rank are applied concurrently, ranks one after the other.
 */
const APPLY_RANK: Record<string, number> = {
  Namespace: 0,
  CustomResourceDefinition: 0,
  SecretBinding: 2,
  CredentialsBinding: 2,
  Seed: 3,
};
const DEFAULT_RANK = 1;
/** Gardener's binding admission takes ~350 ms per object; a few at a time keeps seeding short. */
const APPLY_CONCURRENCY = 8;

/** Server-side applies the objects as `kimops-testenv`; throws naming the first object that fails. */
export async function applyAll(client: KubeClient, objects: KubeObject[]): Promise<void> {
  const ranks = [...new Set(objects.map((o) => APPLY_RANK[o.kind] ?? DEFAULT_RANK))].sort((a, b) => a - b);
  for (const rank of ranks) {
    const queue = objects.filter((o) => (APPLY_RANK[o.kind] ?? DEFAULT_RANK) === rank);
    const worker = async () => {
      for (let object = queue.shift(); object; object = queue.shift()) {
        const result = await client.apply(object, 'kimops-testenv', { force: true });
        if (!result.ok) {
          throw new Error(
            `seeding ${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}: ${describeFailure(result)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: APPLY_CONCURRENCY }, worker));
  }
}

/**
 * Writes a ready status onto each Seed, as its gardenlet would. Gardener drops `status` from writes to the Seed
 * itself, hence the status subresource; a merge patch replaces the whole condition list, so seeding again also
 * undoes a test that left a Seed not ready.
 */
async function markSeedsReady(client: KubeClient, seeds: KubeObject[]): Promise<void> {
  const at = rfc3339Seconds(new Date());
  for (const seed of seeds) {
    const result = await client.patch(refOf(seed), { status: readySeedStatus(at) }, CONTENT_TYPE.mergePatch, 'status');
    if (!result.ok) throw new Error(`seeding the status of Seed ${seed.metadata.name}: ${describeFailure(result)}`);
  }
}

/** Waits until a CRD's kind is served, so the first test can use it. */
async function waitForCrd(
  client: KubeClient,
  type: { apiVersion: string; kind: string; namespace?: string },
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await client.list(type)).ok) {
    if (Date.now() > deadline) throw new Error(`the ${type.kind} CRD was not served within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stateDir = process.argv[2];
if (!stateDir) {
  console.error('usage: seed.ts <state dir of a running plane>');
  process.exit(2);
}
const started = Date.now();
const kcp = KubeClient.fromKubeconfigFile(join(stateDir, 'kcp.kubeconfig'));
const garden = KubeClient.fromKubeconfigFile(join(stateDir, 'garden.kubeconfig'));
/** KALM's AuditLog CRD (fixtures/kcp/, see its README): the dedicated audit-log pool lives on the KCP. */
const auditLogCrd = parse(
  readFileSync(new URL('fixtures/kcp/auditlogmanager.kyma-project.io_auditlogs.yaml', import.meta.url), 'utf8'),
) as KubeObject;
const kcpObjects = [...kcpSeedObjects(), ...skrSeedObjects(), auditLogCrd];
await applyAll(kcp, kcpObjects);
await waitForCrd(kcp, {
  apiVersion: 'infrastructuremanager.kyma-project.io/v1',
  kind: 'Runtime',
  namespace: 'kcp-system',
});
await waitForCrd(kcp, { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' });
await waitForCrd(kcp, {
  apiVersion: 'auditlogmanager.kyma-project.io/v1beta1',
  kind: 'AuditLog',
  namespace: 'kcp-system',
});
const gardenObjects = gardenSeedObjects(loadGardenSeedInput());
await applyAll(garden, gardenObjects);
const seeds = gardenObjects.filter((object) => object.kind === 'Seed');
await markSeedsReady(garden, seeds);
console.log(
  `testenv: seeded ${kcpObjects.length} KCP and ${gardenObjects.length} Garden objects (${seeds.length} Seeds ready) in ${((Date.now() - started) / 1000).toFixed(1)}s`,
);
