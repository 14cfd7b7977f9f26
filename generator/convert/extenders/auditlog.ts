// Audit logging: the API server's policy ConfigMap and the credentials Secret the auditlog
// extension reads. Runs only when the Runtime's provider/region has an audit-log tenant.
import type { NamedResource } from '../../../model/shoot.js';
import type { Extender } from '../context.js';
import { ANNOTATION_EXPERIMENTAL_AUDIT_POLICY } from '../../../model/contract.js';
import { AUDITLOG_CREDENTIALS_RESOURCE, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE } from '../../../rules/audit-log.js';

// One name, shared with the readers of a live Shoot's tenant (rules/audit-log.ts); extensions.ts imports it here.
export { AUDITLOG_CREDENTIALS_RESOURCE };
const EXPERIMENTAL_AUDIT_POLICY_CONFIGMAP = 'experimental-audit-policy';

function upsertResource(resources: NamedResource[], resource: NamedResource): NamedResource[] {
  const index = resources.findIndex((r) => r.name === resource.name);
  return index < 0 ? [...resources, resource] : resources.map((r, i) => (i === index ? resource : r));
}

export const auditLogPolicy: Extender = (draft, { runtime, ctx }) => {
  const tenant = ctx.auditLog;
  if (!tenant) return;
  const secret = { apiVersion: 'v1', kind: 'Secret', name: tenant.secretName };
  draft.spec.resources = upsertResource(draft.spec.resources ?? [], {
    name: AUDITLOG_CREDENTIALS_RESOURCE,
    resourceRef: secret,
  });
  // KIM's patch shape after its migration: the extension reads `auditlog-credentials`, and the migration's resource
  // names the same Secret. kimops writes the latter for every claimed tenant (also a direct claim, where KIM has
  // none), so the applier can tell the Shoot is on a dedicated tenant without the Runtime (ADR 0003).
  if (ctx.dedicatedAuditLog)
    draft.spec.resources = upsertResource(draft.spec.resources, {
      name: DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
      resourceRef: { ...secret },
    });
  const experimental = runtime.metadata.annotations?.[ANNOTATION_EXPERIMENTAL_AUDIT_POLICY]?.toLowerCase() === 'true';
  const policy = experimental
    ? EXPERIMENTAL_AUDIT_POLICY_CONFIGMAP
    : (ctx.config.auditLogging?.policyConfigMapName ?? '');
  draft.spec.kubernetes.kubeAPIServer = {
    ...draft.spec.kubernetes.kubeAPIServer,
    auditConfig: { auditPolicy: { configMapRef: { name: policy } } },
  };
};
