// What the watching backfiller's caches keep of each object: only what a reconcile reads. 10,000 Shoots' specs
// and managedFields are most of their size, and 10,000 customers' kubeconfigs have no business in its memory.
import type { KubeObject } from '../model/kube-object.js';
import { OIDC_EXTENSION_TYPE, SHOOT_API_VERSION } from '../model/shoot.js';
import {
  AUDITLOG_CREDENTIALS_RESOURCE,
  AUDITLOG_EXTENSION_TYPE,
  DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
} from '../rules/audit-log.js';
import type { ShootObject } from './objects.js';

/** Stands for a Secret value a compacted Secret does not hold. */
export const SECRET_VALUE_PRESENT = '(present)';

/**
 * What the Secret cache keeps of a kubeconfig Secret: its metadata (without managedFields) and which keys hold
 * a value — not the kubeconfigs. The backfiller only asks whether `config` is there and when it was synced; it
 * never writes a cached Secret back. So 10,000 customers' admin credentials are not held in its memory.
 */
export function compactSecret(item: KubeObject): KubeObject {
  const data = (item as { data?: Record<string, unknown> }).data ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: withoutManagedFields(item).metadata,
    data: Object.fromEntries(
      Object.entries(data).map(([key, value]) => [
        key,
        typeof value === 'string' && value !== '' ? SECRET_VALUE_PRESENT : '',
      ]),
    ),
  };
}

/**
 * The object without its managedFields: what a cache of the backfiller's needs of any kind (it never writes a
 * cached object back whole, and an update without managedFields keeps the server's).
 */
export function withoutManagedFields<T extends KubeObject>(item: T): T {
  if (!('managedFields' in item.metadata)) return item;
  return {
    ...item,
    metadata: Object.fromEntries(
      Object.entries(item.metadata).filter(([key]) => key !== 'managedFields'),
    ) as T['metadata'],
  };
}

/**
 * What the Shoot cache keeps: metadata (without managedFields), the status, and of the spec only the DNS domain
 * (the GardenerCluster's `skr-domain`), the OIDC extension's entry without its providerConfig (whether
 * OpenIDConnect resources belong on the SKR, skr-status.ts), and the audit-log extension with its providerConfig
 * and the `spec.resources` entries of its credentials (the tenant the Shoot sends to, for the dedicated audit log:
 * rules/audit-log.ts) — the status mapping reads nothing else, and 10,000 Shoots' specs and managedFields are most
 * of their size.
 */
export function compactShootForStatus(item: KubeObject): KubeObject {
  const shoot = withoutManagedFields(item) as ShootObject;
  const domain = shoot.spec?.dns?.domain;
  const extensions = (shoot.spec?.extensions ?? []).flatMap(({ type, disabled, providerConfig }) => {
    if (type === OIDC_EXTENSION_TYPE) return [{ type, ...(disabled !== undefined && { disabled }) }];
    if (type === AUDITLOG_EXTENSION_TYPE)
      return [{ type, ...(disabled !== undefined && { disabled }), ...(providerConfig && { providerConfig }) }];
    return [];
  });
  const resources = (shoot.spec?.resources ?? []).filter((resource) => AUDIT_LOG_RESOURCES.includes(resource.name));
  const spec = {
    ...(domain !== undefined && { dns: { domain } }),
    ...(extensions.length > 0 && { extensions }),
    ...(resources.length > 0 && { resources }),
  };
  return {
    apiVersion: SHOOT_API_VERSION,
    kind: 'Shoot',
    metadata: shoot.metadata,
    ...(Object.keys(spec).length > 0 && { spec }),
    ...(shoot.status !== undefined && { status: shoot.status }),
  };
}

/** The `spec.resources` entries the audit-log extension reads its Secret through (rules/audit-log.ts). */
const AUDIT_LOG_RESOURCES: readonly string[] = [AUDITLOG_CREDENTIALS_RESOURCE, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE];
