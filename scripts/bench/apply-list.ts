// The LIST baseline of `npm run bench -- apply`, in a process of its own: the two LISTs `kimops apply --once`
// makes of the project namespace (every Shoot, in pages of 500; the ConfigMaps labelled as kimops's
// companions), with the same client, each item compacted as its page arrives as the applier does, timed
// apart. A cold sync cannot be faster than these (a watching applier's syncs list nothing: its caches fill
// this way once). Usage: tsx scripts/bench/apply-list.ts <kubeconfig> <namespace>; prints one JSON object.
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { FIELD_MANAGER } from '../../model/contract.js';
import { COMPANION_SELECTOR, compactCompanion, compactShoot } from '../../applier/sync-commit.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { timed } from './generate-common.js';

const [kubeconfig, namespace] = process.argv.slice(2);
if (!kubeconfig || !namespace) throw new Error('usage: apply-list.ts <kubeconfig> <namespace>');
const garden = KubeClient.fromKubeconfigFile(kubeconfig);
// As syncCommit lists them: pages of 500 Shoots (applier/sync-commit.ts LIST_PAGE); the ConfigMaps in one.
const [shoots, shootsMs] = await timed(() =>
  garden.listAll(
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace },
    { limit: 500, map: (item) => compactShoot(item, FIELD_MANAGER) as unknown as typeof item },
  ),
);
if (!shoots.ok) throw new Error(shoots.message);
const [companions, companionsMs] = await timed(() =>
  garden.listAll(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace },
    { labelSelector: COMPANION_SELECTOR, limit: 500, map: (item) => compactCompanion(item, FIELD_MANAGER) },
  ),
);
if (!companions.ok) throw new Error(companions.message);
console.log(
  JSON.stringify({
    // The compacted items as JSON: what a sync keeps of them.
    shoots: {
      ms: shootsMs,
      items: shoots.items.length,
      jsonBytes: Buffer.byteLength(JSON.stringify(shoots.items)),
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    },
    companions: { ms: companionsMs, items: companions.items.length },
  }),
);
