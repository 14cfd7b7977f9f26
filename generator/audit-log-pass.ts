// A generator pass's part of the dedicated audit log (docs/adr/0003-dedicated-audit-log-is-kept.md): before it
// renders, with the landscape's `features.dedicatedAuditLogging` on, it reads KALM's AuditLog pool once, decides per
// Runtime what KIM would do with it (audit-log-claim.ts), does the writes that decision needs (a reservation, a
// claim, a release: compare-and-swap merge patches) and hands the render the tenants the Runtimes claimed and the
// Runtimes it must not render. What failed goes onto the Runtime like a conversion error (runtime-facts.ts). The
// pool is reached only through the port it is handed (adapters/kube/kcp-audit-logs.ts).
import type { AuditLog, AuditLogFailure, AuditLogPool } from '../model/audit-log.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { AuditLogTenant } from '../model/converter-config.js';
import type { LogLine } from '../model/log.js';
import { runtimeRef } from '../model/runtime.js';
import {
  auditLogWrite,
  auditLogWriteFailure,
  decideAuditLog,
  tenantToRender,
  type AuditLogDecision,
} from './audit-log-claim.js';
import type { RuntimeInput } from './render-runtimes.js';

/** What the render takes from the pool, by Runtime (`<namespace>/<name>`). */
export interface AuditLogRendering {
  /** The tenant of the AuditLog the Runtime claimed: rendered instead of the landscape's, with the dedicated mark. */
  tenants: ReadonlyMap<string, AuditLogTenant>;
  /**
   * Runtimes not rendered: no AuditLog could be reserved for their create or claimed for their existing Shoot
   * (KIM fails them before it creates or patches the Shoot). The value is KIM's error text.
   */
  held: ReadonlyMap<string, string>;
}

export interface AuditLogPassResult extends AuditLogRendering {
  /** What the Runtime's status reports (held Runtimes, and a claim that failed once the Runtime was provisioned). */
  failures: ReadonlyMap<string, AuditLogFailure>;
}

export interface AuditLogPassInput {
  /** Every Runtime read, those KEB is deleting included (their AuditLog is released). */
  runtimes: readonly RuntimeInput[];
  pool: AuditLogPool;
  /** Whether the Shoot exists: live in the Garden, or on main (the applier creates it). */
  shootExists: (shoot: string) => boolean;
  now: Date;
  log: LogLine;
}

/**
 * The decisions' writes, one Runtime after the other: a write the next Runtime's decision must see. The pool is
 * read once; an AuditLog another writer changed since (KALM updating its status) is refused with 409: it is read
 * again, kept so for the Runtimes after, and the Runtime decides once more on it and retries once.
 */
export async function settleAuditLogs(input: AuditLogPassInput): Promise<AuditLogPassResult> {
  const pool = await input.pool.list();
  const tenants = new Map<string, AuditLogTenant>();
  const held = new Map<string, string>();
  const failures = new Map<string, AuditLogFailure>();
  for (const { runtime } of input.runtimes) {
    const ref = runtimeRef(runtime);
    const shoot: unknown = runtime.spec?.shoot?.name;
    // A Runtime the converter will refuse (no Shoot name, no region) is left to say so itself.
    if (typeof shoot !== 'string' || typeof runtime.spec?.shoot?.region !== 'string') continue;
    const decide = () => decideAuditLog({ enabled: true, runtime, shootExists: input.shootExists(shoot), pool });
    const fields = { runtime: ref, shoot };
    const runtimeID = runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '';
    let decision = decide();
    let outcome = await written(input, pool, decision, runtimeID, fields, true);
    if (outcome === 'stale') {
      // On the AuditLog as it is now: reserved or claimed for this Runtime already needs no write (a success);
      // taken by another Runtime, the next free one is tried.
      decision = decide();
      outcome = await written(input, pool, decision, runtimeID, fields, false);
    }
    if (outcome !== undefined && outcome !== 'stale') {
      failures.set(ref, outcome);
      if (outcome.step === 'reserve') held.set(ref, outcome.message);
      continue;
    }
    const tenant = tenantToRender(decision);
    if (tenant) tenants.set(ref, tenant);
  }
  return { tenants, held, failures };
}

/**
 * Does the decision's write; the failure the Runtime reports, if any (a release's is only logged), or `stale` when
 * the API refused it as written on an older AuditLog (409) and `retry` allows another decision on the one read now.
 */
async function written(
  input: AuditLogPassInput,
  pool: AuditLog[],
  decision: AuditLogDecision,
  runtimeID: string,
  fields: { runtime: string; shoot: string },
  retry: boolean,
): Promise<AuditLogFailure | 'stale' | undefined> {
  // Said by the selection, which leaves the Runtime unrendered (render-selection.ts).
  if (decision.kind === 'fail') return decision.failure;
  const write = auditLogWrite(decision, runtimeID, input.now);
  if (!write || !('auditLog' in decision)) return undefined;
  const label = `audit-log ${decision.kind.padEnd(9)} ${fields.shoot}: AuditLog ${write.name}`;
  const result = await input.pool.patch(write.name, write.patch);
  if (!result.ok) {
    // The later Runtimes of the pass must not write on the same old resourceVersion.
    const reread = result.conflict && (await refreshed(input, pool, write.name, label, fields));
    if (reread && retry) {
      input.log(`${label} changed since the pool was read (409); deciding again on it`, fields);
      return 'stale';
    }
    const failure = auditLogWriteFailure(decision, result);
    input.log(
      `${label}: ${failure?.message ?? result.message}` +
        (result.fix !== undefined ? ` — ${result.fix}` : '') +
        `; ${failure ? 'the next pass decides again' : 'the Runtime is deleted all the same, the next pass tries again'}`,
      fields,
      'warn',
    );
    return failure;
  }
  // The next Runtime decides on the pool as written: this one is no longer available.
  replace(pool, write.name, result.auditLog);
  input.log(`${label} ${DONE[decision.kind]}`, fields);
  return undefined;
}

/** Reads one AuditLog again into the pool (gone: out of it); whether the pool now holds what the API holds. */
async function refreshed(
  input: AuditLogPassInput,
  pool: AuditLog[],
  name: string,
  label: string,
  fields: { runtime: string; shoot: string },
): Promise<boolean> {
  const read = await input.pool.get(name);
  if (read.ok) replace(pool, name, read.auditLog);
  else if (read.notFound) replace(pool, name, undefined);
  else {
    input.log(
      `${label}: reading it again after a conflict: ${read.message}${read.fix ? ` — ${read.fix}` : ''}`,
      fields,
      'warn',
    );
    return false;
  }
  return true;
}

function replace(pool: AuditLog[], name: string, auditLog: AuditLog | undefined): void {
  const at = pool.findIndex((a) => a.metadata.name === name);
  if (at < 0) return;
  if (auditLog) pool[at] = auditLog;
  else pool.splice(at, 1);
}

const DONE: Record<string, string> = {
  reserve: 'reserved; the Shoot is created on the shared tenant until the Runtime is provisioned',
  claim: "claimed; the Shoot's change to its tenant is proposed",
  'direct-claim': "claimed for the existing Shoot; the Shoot's change to its tenant is proposed",
  release: 'released (orphaned: KALM keeps the logs for their retention)',
  unreserve: 'unreserved: the Runtime was deleted before it claimed it, the AuditLog is back in the pool',
};
