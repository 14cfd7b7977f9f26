// The dedicated audit log's read credentials copied to the SKR (KIM's CopyAuditLogReadCredentials, docs/skr.md
// "Dedicated audit log"): the KCP Secret the Runtime's AuditLog names, read by GET, server-side applied as
// `kyma-system/auditlog-read-credentials` on the Shoot's own cluster. The backfiller does it, not the applier:
// the source is a KCP Secret, and the customer's credentials must pass neither through Git nor the Garden.
import { FIELD_MANAGER } from '../model/contract.js';
import { describeFailure } from '../model/kube-result.js';
import type { KubeObject } from '../model/kube-object.js';
import { readCredentialsSecret, type CopyFailure } from './audit-log-conditions.js';
import { SECRET_TYPE } from './objects.js';
import type { BackfillContext, SkrConnect } from './ports.js';

/**
 * Copies `source` (a KCP Secret) to the SKR of `shoot`, forced (the Secret's content is KALM's, whoever wrote the
 * copy before). The source is read first, so no admin kubeconfig is issued for a copy that cannot happen. Never
 * throws for an API failure: it is the copy's failure, in KIM's step words, for `AuditLogCredentialsCopied`.
 */
export async function copyReadCredentials(
  context: Pick<BackfillContext, 'kcp'>,
  skr: SkrConnect,
  shoot: string,
  source: { namespace: string; name: string },
): Promise<{ failure?: CopyFailure }> {
  const read = await context.kcp.get<KubeObject & { type?: unknown; data?: unknown }>({ ...SECRET_TYPE, ...source });
  if (!read.ok) return { failure: { step: 'source', source, message: describeFailure(read) } };
  const connected = await skr(shoot);
  if (!connected.ok) return { failure: { step: 'client', message: connected.message } };
  try {
    const applied = await connected.client.apply(readCredentialsSecret(read.body), FIELD_MANAGER, { force: true });
    return applied.ok ? {} : { failure: { step: 'apply', message: describeFailure(applied) } };
  } finally {
    connected.client.close();
  }
}
