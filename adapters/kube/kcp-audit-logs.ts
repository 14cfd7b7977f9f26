// KALM's AuditLog pool on the KCP, as the generator reads and writes it (generator/audit-log-pass.ts decides what):
// in the namespace of the Runtimes (`--kcp-namespace`, kcp-system), where KIM looks for it in its own. A fresh
// LIST each pass rather than an informer: the pass writes to the pool and decides the next pass on what it wrote;
// a cache that had not yet seen its own write would decide on an old resourceVersion and fail the Runtime with a
// conflict. Writes are JSON merge patches carrying the resourceVersion they were decided
// on: the API server refuses one with 409 when another writer came first (KIM's optimistic Update); the pass then
// GETs that one AuditLog to decide again on it.
import {
  AUDIT_LOG_API_VERSION,
  AUDIT_LOG_KIND,
  type AuditLog,
  type AuditLogGetResult,
  type AuditLogPatchResult,
  type AuditLogPool,
} from '../../model/audit-log.js';
import { TransportError } from '../../model/errors.js';
import { describeFailure, fixFor, type ApiStatus } from '../../model/kube-result.js';
import { DEFAULT_PAGE_SIZE } from './informer.js';
import { CONTENT_TYPE, type KubeClient } from './kube-client.js';

/**
 * The API server's error as KIM's messages wrap it (Go's error text of the status: its message), the condition's
 * text; the status code leads only where no message came.
 */
function apiError(result: { status: number; error: ApiStatus }): string {
  return result.error.message ?? describeFailure(result);
}

export function kcpAuditLogPool(client: KubeClient, namespace: string): AuditLogPool {
  const type = { apiVersion: AUDIT_LOG_API_VERSION, kind: AUDIT_LOG_KIND, namespace };
  const resource = `auditlogs.auditlogmanager.kyma-project.io in ${namespace}`;
  return {
    async list() {
      const listed = await client.listAll<AuditLog>(type, { limit: DEFAULT_PAGE_SIZE });
      // The landscape asks for dedicated audit logs: a pass without the pool would create Shoots unreserved.
      if (!listed.ok)
        throw new TransportError(`kubeconfig ${client.label}`, `the dedicated audit log's pool: ${listed.message}`);
      return listed.items;
    },
    async patch(name, patch): Promise<AuditLogPatchResult> {
      const written = await client.patch<AuditLog>({ ...type, name }, patch, CONTENT_TYPE.mergePatch);
      if (written.ok) return { ok: true, auditLog: written.body };
      // A conflict is another writer's, nothing to fix: the pass reads the AuditLog again and decides once more.
      if (written.status === 409) return { ok: false, conflict: true, message: apiError(written) };
      const fix =
        written.status === 403
          ? `grant the generator's identity patch on ${resource}`
          : fixFor(written.status, resource);
      return { ok: false, conflict: false, message: apiError(written), fix };
    },
    async get(name): Promise<AuditLogGetResult> {
      const read = await client.get<AuditLog>({ ...type, name });
      if (read.ok) return { ok: true, auditLog: read.body };
      const fix =
        read.status === 403 ? `grant the generator's identity get on ${resource}` : fixFor(read.status, resource);
      return { ok: false, notFound: read.status === 404, message: apiError(read), fix };
    },
  };
}
