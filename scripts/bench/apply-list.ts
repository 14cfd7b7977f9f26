// The LIST baseline of `npm run bench -- apply`, in a process of its own: the two LISTs `kimops apply` makes
// of the project namespace (every Shoot, in pages of 500; the ConfigMaps labelled as kimops's companions),
// with the same client, timed apart. A sync cannot be faster than these. Usage: tsx scripts/bench/apply-list.ts
// <kubeconfig> <namespace>; prints one JSON object.
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { COMPANION_OF_LABEL, OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../../applier/plan.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { timed } from './generate-common.js';

const [kubeconfig, namespace] = process.argv.slice(2);
if (!kubeconfig || !namespace) throw new Error('usage: apply-list.ts <kubeconfig> <namespace>');
const garden = KubeClient.fromKubeconfigFile(kubeconfig);
// As syncCommit lists them: pages of 500 Shoots (applier/sync-commit.ts LIST_PAGE); the ConfigMaps in one.
const [shoots, shootsMs] = await timed(() => garden.listAll({ apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace }, { limit: 500 }));
if (!shoots.ok) throw new Error(shoots.message);
const [companions, companionsMs] = await timed(() =>
  garden.listAll({ apiVersion: 'v1', kind: 'ConfigMap', namespace }, { labelSelector: `${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE},${COMPANION_OF_LABEL}` }),
);
if (!companions.ok) throw new Error(companions.message);
console.log(
  JSON.stringify({
    // The items as JSON: about the size of the response body (which the client does not expose).
    shoots: { ms: shootsMs, items: shoots.items.length, jsonBytes: Buffer.byteLength(JSON.stringify(shoots.items)), peakRssBytes: process.resourceUsage().maxRSS * 1024 },
    companions: { ms: companionsMs, items: companions.items.length },
  }),
);
