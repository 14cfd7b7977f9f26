// A client for a Shoot's own cluster (the SKR), from Gardener's `adminkubeconfig` subresource: asked for with the
// Garden's client, valid for minutes, held in memory only — never written to a file, never logged — and closed
// by the caller when it is done with that cluster.
import { KubeConfig } from '@kubernetes/client-node';
import { adminKubeconfigPath, adminKubeconfigRequest, readAdminKubeconfig } from '../../model/admin-kubeconfig.js';
import { describeFailure, fixFor } from '../../model/kube-result.js';
import { KubeClient } from './kube-client.js';

/** As short as Gardener allows: the client lives for one sync of one SKR. */
const SKR_KUBECONFIG_SECONDS = 600;
/**
 * A request to an SKR that has no answer by then gets none: a cluster's API server answers within seconds, and
 * an unreachable one must not hold the sync (and the Garden writes of the next commit) for KubeClient's 90 s.
 */
const SKR_REQUEST_DEADLINE_MS = 30_000;

export type SkrClientResult = { ok: true; client: KubeClient } | { ok: false; status: number; message: string };

/**
 * POSTs an AdminKubeconfigRequest for `namespace/shoot` with `garden` and makes a client of the answer. A failure
 * is a value naming the Shoot, the Garden's answer and the fix; it never quotes the kubeconfig.
 */
export async function skrClient(
  garden: Pick<KubeClient, 'request' | 'label'>,
  namespace: string,
  shoot: string,
): Promise<SkrClientResult> {
  const what = `adminkubeconfig of Shoot ${namespace}/${shoot}`;
  const path = adminKubeconfigPath(namespace, shoot);
  const issued = await garden.request<unknown>('POST', path, { body: adminKubeconfigRequest(SKR_KUBECONFIG_SECONDS) });
  if (!issued.ok) {
    // Other answers say themselves what Gardener misses (a Shoot without an API server address yet, say).
    const fix =
      issued.status === 403
        ? ` — grant the Garden identity create on shoots/adminkubeconfig in ${namespace}`
        : issued.status === 0
          ? ` — ${fixFor(0, path)}`
          : '';
    return {
      ok: false,
      status: issued.status,
      message: `request ${what} (kubeconfig ${garden.label}): ${describeFailure(issued)}${fix}`,
    };
  }
  const answer = readAdminKubeconfig(issued.body);
  if (!answer.ok) return { ok: false, status: issued.status, message: `${what}: ${answer.error}` };
  const config = new KubeConfig();
  try {
    config.loadFromString(answer.kubeconfig);
  } catch {
    // Not the parser's message: it quotes the text around the fault, which may be a credential.
    return { ok: false, status: issued.status, message: `${what}: the answer's kubeconfig cannot be read` };
  }
  return { ok: true, client: KubeClient.fromKubeConfig(config, what, { deadlineMs: SKR_REQUEST_DEADLINE_MS }) };
}
