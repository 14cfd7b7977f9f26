// The kubeconfig KIM keeps for a Runtime once its Shoot's Create has succeeded: the GardenerCluster, the Secret
// `kubeconfig-<runtimeID>` from Gardener's `adminkubeconfig`, rotated when kubeconfig.ts says so, the
// GardenerCluster's status, and both removed once the Shoot is gone. Every decision is kubeconfig.ts's.
import { stringify } from 'safe-stable-stringify';
import { describeFailure } from '../model/kube-result.js';
import { FIELD_MANAGER, KUBECONFIG_SECRET_KEY } from '../model/contract.js';
import { readRuntimeStatus, CONDITION_KUBECONFIG_READY } from '../model/runtime-status.js';
import { adminKubeconfigPath } from '../model/admin-kubeconfig.js';
import {
  adminKubeconfigRequest,
  forceRotationRemovalPatch,
  gardenerClusterFor,
  gardenerClusterSeries,
  gardenerClusterStatus,
  type GardenerCluster,
  type GardenerClusterStatus,
  kubeconfigExpirationSample,
  type KubeconfigOutcome,
  kubeconfigSecretFor,
  readAdminKubeconfigResponse,
  rotationDecision,
  type RotationOptions,
  secretRefOf,
  type SecretLike,
} from './kubeconfig.js';
import type { Lookup } from './lookups.js';
import type { KubeconfigObservation } from './metrics.js';
import {
  GARDENER_CLUSTER_TYPE,
  SECRET_TYPE,
  type GardenerClusterObject,
  type RuntimeObject,
  type SecretObject,
  type ShootObject,
} from './objects.js';
import type { RuntimeOutcome } from './outcome.js';
import type { BackfillContext } from './ports.js';
import { kubeconfigSecretName } from './status.js';
import { failure, StepError } from './step-error.js';

/** KIM handles the kubeconfig once the Shoot's Create has succeeded; it stays handled through later reconciles. */
export function createSucceeded(shoot: ShootObject): boolean {
  const operation = shoot.status?.lastOperation;
  if (!operation) return false;
  return operation.type !== 'Create' || operation.state === 'Succeeded';
}

interface SecretRead {
  /** The Secret has key `config` (on a failed read: the Runtime's `KubeconfigReady` stays as it was). */
  ready: boolean;
  /** Read, and where: `ensureKubeconfig` does not read it again. */
  read?: { namespace: string; name: string; secret: SecretObject | undefined };
}

/** The kubeconfig Secret as read now. A failed read is reported and changes nothing: a Ready Runtime stays Ready. */
export async function readKubeconfigSecret(
  runtime: RuntimeObject,
  lookup: Lookup,
  outcome: RuntimeOutcome,
): Promise<SecretRead> {
  const name = kubeconfigSecretName(runtime);
  if (!name) return { ready: false };
  const namespace = runtime.metadata.namespace ?? '';
  try {
    const secret = await lookup.secret(namespace, name);
    return { ready: hasConfig(secret), read: { namespace, name, secret } };
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    outcome.errors.push(error.message);
    outcome.unreachable ||= error.unreachable;
    const was = readRuntimeStatus(runtime.status).conditions?.find(
      (condition) => condition.type === CONDITION_KUBECONFIG_READY,
    );
    return { ready: was?.status === 'True' };
  }
}

function hasConfig(secret: SecretLike | undefined): boolean {
  const value = secret?.data?.[KUBECONFIG_SECRET_KEY];
  return typeof value === 'string' && value !== '';
}

interface Ensured {
  ready: boolean;
  written?: 'created' | 'rotated';
  error?: string;
  metrics?: KubeconfigObservation;
}

/**
 * The GardenerCluster (applied when missing or when kimops's fields differ; forced for the fields kimops sets,
 * fields other managers own and kimops does not set stay theirs), the Secret per `rotationDecision` from
 * Gardener's `adminkubeconfig`, the force annotation removed after a forced rotation, and the GardenerCluster
 * status when it changes. A failure of the
 * kubeconfig steps lands in the GardenerCluster status (KIM's reasons) and in the outcome; `already` is the
 * Secret as the caller read it (not read again when the GardenerCluster points at it).
 */
export async function ensureKubeconfig(
  context: BackfillContext,
  runtime: RuntimeObject,
  shoot: ShootObject,
  lookup: Lookup,
  now: () => Date,
  already: SecretRead,
): Promise<Ensured> {
  const desired = gardenerClusterFor(runtime, shoot.spec?.dns?.domain);
  const name = `${runtime.metadata.namespace ?? ''}/${runtime.metadata.name}`;
  if (!desired)
    return {
      ready: false,
      error: `Runtime ${name}: no label kyma-project.io/runtime-id or no spec.shoot.name; KEB sets both — no GardenerCluster or kubeconfig Secret without them`,
    };
  const gcName = `${desired.metadata.namespace}/${desired.metadata.name}`;
  let cluster = await lookup.gardenerCluster(desired.metadata.namespace, desired.metadata.name);
  if (!cluster || !covers(cluster, desired)) {
    // Forced: the apply carries only the fields kimops decides (KIM's labels, skr-domain, spec), which KIM's
    // manager owns on a GardenerCluster KIM created; unforced, that is a 409 on every such Runtime. Fields kimops
    // does not set (other labels, the force-rotation annotation, status) stay their managers'.
    const applied = await context.kcp.apply<GardenerClusterObject>(desired, FIELD_MANAGER, { force: true });
    if (!applied.ok) {
      const error = failure(`apply GardenerCluster ${gcName}`, context.kcp, applied);
      if (applied.status === 409) {
        error.message +=
          `: another field manager (KIM's infrastructure-manager, when KIM created it) owns fields kimops sets, and the forced apply was still refused; ` +
          `make sure KIM's GardenerCluster controller is off (cut-over), or delete GardenerCluster ${gcName} for kimops to create it again`;
      }
      throw error;
    }
    cluster = { ...applied.body, ...GARDENER_CLUSTER_TYPE };
  }
  const ref = secretRefOf(cluster);
  let secret: SecretObject | undefined;
  let outcome: KubeconfigOutcome;
  let written: Ensured['written'];
  try {
    secret =
      already.read && already.read.namespace === ref.namespace && already.read.name === ref.name
        ? already.read.secret
        : await lookup.secret(ref.namespace, ref.name);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    outcome = { result: 'failed', step: 'check-secret', error: error.message };
    await writeClusterStatus(context, cluster, outcome, now());
    throw error;
  }
  let decision = rotationDecision({ secret, gardenerCluster: cluster, now: now(), ...rotationOptionsOf(context) });
  if (decision.action === 'rotate' && lookup.secretFresh) {
    // Decided from a cache: a rotation this process has just written may not be in it yet. Rotate only on the API's word.
    secret = await lookup.secretFresh(ref.namespace, ref.name);
    decision = rotationDecision({ secret, gardenerCluster: cluster, now: now(), ...rotationOptionsOf(context) });
  }
  let error: string | undefined;
  if (decision.action === 'keep') {
    outcome = { result: 'kept' };
  } else {
    const issued = await context.garden.request<unknown>(
      'POST',
      adminKubeconfigPath(context.gardenNamespace, shoot.metadata.name),
      {
        body: adminKubeconfigRequest(context.expirationSeconds),
      },
    );
    const read = issued.ok
      ? readAdminKubeconfigResponse(issued.body)
      : ({ ok: false, error: describeFailure(issued) } as const);
    if (!read.ok) {
      if (!issued.ok && issued.status === 0)
        throw failure(
          `request adminkubeconfig of Shoot ${context.gardenNamespace}/${shoot.metadata.name}`,
          context.garden,
          issued,
        );
      outcome = { result: 'failed', step: 'get-kubeconfig', error: read.error };
      error = `Shoot ${context.gardenNamespace}/${shoot.metadata.name}: adminkubeconfig: ${read.error} (kubeconfig ${context.garden.label}); the next pass asks again`;
    } else {
      const body = kubeconfigSecretFor(cluster, read.kubeconfig, now());
      // The Secret's content is kimops's by definition (KIM wrote it before): force takes over KIM's fields.
      const applied = await context.kcp.apply<SecretObject>(body, FIELD_MANAGER, {
        force: true,
      });
      if (!applied.ok) {
        if (applied.status === 0) throw failure(`write Secret ${ref.namespace}/${ref.name}`, context.kcp, applied);
        outcome = {
          result: 'failed',
          step: secret ? 'update-secret' : 'create-secret',
          error: describeFailure(applied),
        };
        error = `write Secret ${ref.namespace}/${ref.name} (kubeconfig ${context.kcp.label}): ${describeFailure(applied)}`;
      } else {
        secret = applied.body;
        written = decision.action === 'create' ? 'created' : 'rotated';
        outcome = { result: written };
        if (decision.forced) {
          const patched = await context.kcp.patch<GardenerClusterObject>(
            { ...GARDENER_CLUSTER_TYPE, namespace: cluster.metadata.namespace, name: cluster.metadata.name },
            forceRotationRemovalPatch(),
          );
          if (patched.ok) cluster = { ...patched.body, ...GARDENER_CLUSTER_TYPE };
          else
            error = `remove the force-rotation annotation of GardenerCluster ${cluster.metadata.namespace ?? ''}/${cluster.metadata.name}: ${describeFailure(patched)}`;
        }
      }
    }
  }
  const status = await writeClusterStatus(context, cluster, outcome, now());
  const expiration = secret && kubeconfigExpirationSample(secret, rotationOptionsOf(context));
  const metrics = {
    runtimeId: cluster.metadata.name,
    cluster: gardenerClusterSeries(cluster, status),
    ...(expiration && { expiration }),
  };
  return { ready: hasConfig(secret), ...(written && { written }), ...(error !== undefined && { error }), metrics };
}

function rotationOptionsOf(context: BackfillContext): RotationOptions {
  return {
    ...(context.expirationSeconds !== undefined && { expirationSeconds: context.expirationSeconds }),
    ...(context.minimalRotationTime !== undefined && { minimalRotationTime: context.minimalRotationTime }),
  };
}

/** Whether the live GardenerCluster already has every label, annotation and spec field kimops would apply. */
function covers(live: GardenerClusterObject, desired: GardenerCluster): boolean {
  const labels = (live.metadata.labels ?? {}) as Record<string, string>;
  const annotations = (live.metadata.annotations ?? {}) as Record<string, string>;
  if (Object.entries(desired.metadata.labels).some(([key, value]) => labels[key] !== value)) return false;
  if (Object.entries(desired.metadata.annotations ?? {}).some(([key, value]) => annotations[key] !== value))
    return false;
  return stringify(live.spec ?? {}) === stringify(desired.spec);
}

/**
 * The GardenerCluster's status for `outcome`, written when it differs; returns it (written or not: the metric
 * follows it).
 */
async function writeClusterStatus(
  context: BackfillContext,
  cluster: GardenerClusterObject,
  outcome: KubeconfigOutcome,
  now: Date,
): Promise<GardenerClusterStatus> {
  const status = gardenerClusterStatus(outcome, now, cluster.status);
  if (stringify(status) === stringify(cluster.status ?? null)) return status;
  const ref = { ...GARDENER_CLUSTER_TYPE, namespace: cluster.metadata.namespace, name: cluster.metadata.name };
  const patched = await context.kcp.patch(ref, { status }, undefined, 'status'); // a merge patch
  if (!patched.ok && patched.status !== 404)
    throw failure(`write status of GardenerCluster ${ref.namespace ?? ''}/${ref.name}`, context.kcp, patched);
  return status;
}

/**
 * After the Shoot is gone: the GardenerCluster, then the Secret (KIM deletes it by its cluster-name label; here
 * by name).
 */
export async function removeKubeconfig(
  context: BackfillContext,
  runtime: RuntimeObject,
  lookup: Lookup,
): Promise<void> {
  const desired = gardenerClusterFor(runtime);
  const namespace = runtime.metadata.namespace ?? '';
  const secretName = kubeconfigSecretName(runtime);
  if (desired) {
    const cluster = await lookup.gardenerCluster(desired.metadata.namespace, desired.metadata.name);
    const ref = cluster ? secretRefOf(cluster) : undefined;
    const deleted = await context.kcp.delete({
      ...GARDENER_CLUSTER_TYPE,
      namespace: desired.metadata.namespace,
      name: desired.metadata.name,
    });
    if (!deleted.ok && deleted.status !== 404)
      throw failure(
        `delete GardenerCluster ${desired.metadata.namespace}/${desired.metadata.name}`,
        context.kcp,
        deleted,
      );
    if (ref && ref.name !== secretName) await deleteSecret(context, ref.namespace, ref.name);
  }
  if (secretName) await deleteSecret(context, namespace, secretName);
}

async function deleteSecret(context: BackfillContext, namespace: string, name: string): Promise<void> {
  const deleted = await context.kcp.delete({ ...SECRET_TYPE, namespace, name });
  if (!deleted.ok && deleted.status !== 404) throw failure(`delete Secret ${namespace}/${name}`, context.kcp, deleted);
}
