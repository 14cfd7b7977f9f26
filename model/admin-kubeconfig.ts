// Gardener's `adminkubeconfig` subresource of a Shoot: the request body and the answer's kubeconfig, for every
// component that asks for one (the backfiller's kubeconfig Secret, the applier's short-lived client for the
// SKR). Pure: the caller POSTs (adapters/kube) and decides what to do with the kubeconfig.
import { SHOOT_API_VERSION } from './shoot.js';
import { isJsonObject } from './json.js';

const ADMIN_KUBECONFIG_REQUEST_API_VERSION = 'authentication.gardener.cloud/v1alpha1';
const ADMIN_KUBECONFIG_REQUEST_KIND = 'AdminKubeconfigRequest';
/** The Shoot subresource the request is POSTed to. */
const ADMIN_KUBECONFIG_SUBRESOURCE = 'adminkubeconfig';
/** gardener-apiserver refuses an `expirationSeconds` below 10 minutes (and caps it at its configured maximum, 24h by default). */
const MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS = 600;

export interface AdminKubeconfigRequest {
  apiVersion: typeof ADMIN_KUBECONFIG_REQUEST_API_VERSION;
  kind: typeof ADMIN_KUBECONFIG_REQUEST_KIND;
  spec: { expirationSeconds: number };
}

/** `/apis/core.gardener.cloud/v1beta1/namespaces/<ns>/shoots/<name>/adminkubeconfig`. */
export function adminKubeconfigPath(namespace: string, shoot: string): string {
  return `/apis/${SHOOT_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/shoots/${encodeURIComponent(shoot)}/${ADMIN_KUBECONFIG_SUBRESOURCE}`;
}

/**
 * The body to POST. Throws a RangeError for a validity Gardener would refuse (not a whole number of seconds, or
 * under 10 minutes): a configuration mistake, caught where it is configured.
 */
export function adminKubeconfigRequest(expirationSeconds: number): AdminKubeconfigRequest {
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS) {
    throw new RangeError(
      `kubeconfig expiration must be a whole number of seconds, at least ${MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS}; got ${expirationSeconds}`,
    );
  }
  return {
    apiVersion: ADMIN_KUBECONFIG_REQUEST_API_VERSION,
    kind: ADMIN_KUBECONFIG_REQUEST_KIND,
    spec: { expirationSeconds },
  };
}

export type AdminKubeconfigAnswer =
  { ok: true; kubeconfig: string; expirationTimestamp?: string } | { ok: false; error: string };

/**
 * Gardener's answer: `status.kubeconfig` (base64 in JSON) as text, and `status.expirationTimestamp` as written
 * (Gardener may issue a shorter validity than asked for: its maximum). The error never quotes the answer: it
 * may hold a credential.
 */
export function readAdminKubeconfig(body: unknown): AdminKubeconfigAnswer {
  const status = isJsonObject(body) && isJsonObject(body.status) ? body.status : undefined;
  const encoded = status?.kubeconfig;
  if (typeof encoded !== 'string' || encoded === '')
    return { ok: false, error: 'the AdminKubeconfigRequest answer has no status.kubeconfig' };
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return { ok: false, error: 'status.kubeconfig of the AdminKubeconfigRequest answer is not base64' };
  }
  const kubeconfig = Buffer.from(encoded, 'base64').toString('utf8');
  if (kubeconfig.trim() === '')
    return { ok: false, error: 'the AdminKubeconfigRequest answer has an empty kubeconfig' };
  const expires = status?.expirationTimestamp;
  return { ok: true, kubeconfig, ...(typeof expires === 'string' && { expirationTimestamp: expires }) };
}
