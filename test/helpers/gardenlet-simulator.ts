// Plays Gardener's controllers against the real gardener-apiserver, so tests see the Shoot status
// a real landscape would show: the `gardener` finalizer, lastOperation moving Create/Reconcile/
// Delete through Pending → Processing → Succeeded, observedGeneration, deletion once confirmed, and
// what the `adminkubeconfig` subresource needs (pointing at the local kube-apiserver, which plays
// the Shoot's cluster). Tests inject Error/Failed/Aborted with lastErrors codes per Shoot.
//
// Stateless by design: every step is derived from the Shoot's own status, like a controller, so a
// restarted simulator continues where the last one stopped.
import { CONTENT_TYPE, type KubeClient } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Shoot, ShootStatus } from '../../model/shoot.js';
import { rfc3339Seconds } from '../../model/go-time.js';

export const GARDENER_FINALIZER = 'gardener';
/**
 * The groups gardener-apiserver puts into admin kubeconfig certificates: system admins for a requester that may
 * list Secrets cluster-wide, project admins for anyone else (a project's ServiceAccount, as the deployed applier).
 * A real Shoot binds both to cluster-admin.
 */
const SHOOT_ADMINS_GROUPS = ['gardener.cloud:system:admins', 'gardener.cloud:project:admins'];
const SHOOT = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' } as const;

type OperationState = 'Pending' | 'Processing' | 'Succeeded' | 'Error' | 'Failed' | 'Aborted';

export interface Fault {
  /** The state the next operation ends in instead of Succeeded. */
  state: 'Error' | 'Failed' | 'Aborted';
  /** Gardener error codes, e.g. ERR_INFRA_QUOTA_EXCEEDED (retryable) or ERR_CONFIGURATION_PROBLEM. */
  codes?: string[];
  description?: string;
}

/** The local kube-apiserver as the Shoot's own cluster, for `adminkubeconfig`. */
interface RuntimeCluster {
  server: string;
  /** PEM of the CA that signed the server's serving certificate. */
  caCert: string;
  /** PEM cert and key of a CA the server trusts for client certificates. */
  clientCACert: string;
  clientCAKey: string;
}

export interface SimulatorOptions {
  garden: KubeClient;
  /** Pause between passes when running on its own; 0 = only when a test calls tick(). */
  intervalMs?: number;
  /** Progress values an operation reports while Processing, one per pass. */
  progressSteps?: number[];
  runtimeCluster?: RuntimeCluster;
  /** Gardener version written into status.gardener. */
  gardenerVersion?: string;
}

type ShootWithMeta = Shoot & {
  metadata: Shoot['metadata'] & { uid?: string; finalizers?: string[]; deletionTimestamp?: string };
};

export class GardenletSimulator {
  private readonly faults = new Map<string, Fault>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Failures of the last pass; a test asserts on them rather than the simulator throwing mid-way. */
  readonly problems: string[] = [];

  constructor(private readonly options: SimulatorOptions) {}

  /** Reconcile on an interval until stop(). */
  start(): void {
    const interval = this.options.intervalMs ?? 50;
    const loop = async () => {
      this.running = this.tick();
      await this.running;
      if (this.timer !== undefined) this.timer = setTimeout(() => void loop(), interval);
    };
    this.timer = setTimeout(() => void loop(), 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  inject(namespace: string, name: string, fault: Fault): void {
    this.faults.set(`${namespace}/${name}`, fault);
  }

  heal(namespace: string, name: string): void {
    this.faults.delete(`${namespace}/${name}`);
  }

  /** One pass over every Shoot: each moves at most one step. */
  async tick(): Promise<void> {
    const listed = await this.options.garden.request<{ items: ShootWithMeta[] }>(
      'GET',
      `/apis/${SHOOT.apiVersion}/shoots`,
    );
    if (!listed.ok) {
      this.problems.push(`list Shoots: ${describeFailure(listed)}`);
      return;
    }
    for (const shoot of listed.body.items) {
      const problem = await this.step({ ...shoot, ...SHOOT });
      if (problem) this.problems.push(`${shoot.metadata.namespace}/${shoot.metadata.name}: ${problem}`);
    }
  }

  /** Moves one Shoot one step; returns a problem description or undefined. */
  private async step(shoot: ShootWithMeta): Promise<string | undefined> {
    const finalizers = shoot.metadata.finalizers ?? [];
    if (shoot.metadata.deletionTimestamp) return this.stepDeletion(shoot, finalizers);
    if (!finalizers.includes(GARDENER_FINALIZER)) {
      return this.patch(shoot, {
        metadata: { finalizers: [...finalizers, GARDENER_FINALIZER], resourceVersion: shoot.metadata.resourceVersion },
      });
    }
    const status = shoot.status ?? {};
    const last = status.lastOperation;
    const generation = Number(shoot.metadata.generation ?? 0);
    const specChanged = generation !== status.observedGeneration;
    if (!last || (isFinal(last.state) && specChanged) || last.state === 'Error' || last.state === 'Aborted') {
      if (last && isRetryPending(last.state) && this.faults.has(key(shoot)) && !specChanged) return undefined; // a stuck fault stays
      const type = !last || (last.type === 'Create' && last.state !== 'Succeeded') ? 'Create' : 'Reconcile';
      // Like gardenlet, a new generation starts a new retry cycle; retries of the same one keep its start.
      const cycle = !last || specChanged ? { retryCycleStartTime: rfc3339Seconds(new Date()) } : {};
      return this.setStatus(shoot, {
        ...this.baseStatus(shoot),
        ...cycle,
        lastOperation: operation(type, 'Pending', 0),
        lastErrors: null,
      });
    }
    if (last.state === 'Pending' || last.state === 'Processing') {
      const next = this.nextProgress(last.progress ?? 0);
      if (next !== undefined) return this.setStatus(shoot, { lastOperation: operation(last.type, 'Processing', next) });
      return this.finish(shoot, last.type, generation);
    }
    return undefined;
  }

  private async finish(shoot: ShootWithMeta, type: string, generation: number): Promise<string | undefined> {
    const fault = this.faults.get(key(shoot));
    if (fault) {
      return this.setStatus(shoot, {
        lastOperation: operation(type, fault.state, 90, fault.description ?? `simulated ${fault.state}`),
        lastErrors: [
          {
            description: fault.description ?? `simulated ${fault.state}`,
            codes: fault.codes ?? [],
            taskID: 'simulated',
          },
        ],
        // Gardener still records which generation it worked on.
        observedGeneration: generation,
      });
    }
    const problem = await this.ensureAdminKubeconfigInputs(shoot);
    if (problem) return problem;
    return this.setStatus(shoot, {
      ...this.baseStatus(shoot),
      lastOperation: operation(type, 'Succeeded', 100),
      lastErrors: null,
      observedGeneration: generation,
      ...(this.options.runtimeCluster && {
        advertisedAddresses: [{ name: 'external', url: this.options.runtimeCluster.server }],
      }),
    });
  }

  private async stepDeletion(shoot: ShootWithMeta, finalizers: string[]): Promise<string | undefined> {
    const last = shoot.status?.lastOperation;
    if (last?.type !== 'Delete')
      return this.setStatus(shoot, { lastOperation: operation('Delete', 'Pending', 0), lastErrors: null });
    if (last.state === 'Pending' || last.state === 'Processing') {
      const next = this.nextProgress(last.progress ?? 0);
      if (next !== undefined) return this.setStatus(shoot, { lastOperation: operation('Delete', 'Processing', next) });
      const fault = this.faults.get(key(shoot));
      if (fault) {
        return this.setStatus(shoot, {
          lastOperation: operation('Delete', fault.state, 90, fault.description),
          lastErrors: [{ description: fault.description ?? `simulated ${fault.state}`, codes: fault.codes ?? [] }],
        });
      }
      return this.setStatus(shoot, { lastOperation: operation('Delete', 'Succeeded', 100) });
    }
    // Force-deletion (gardener-apiserver admits the annotation only on a stuck deletion): Gardener skips the cleanup.
    const forced = shoot.metadata.annotations?.['confirmation.gardener.cloud/force-deletion'] === 'true';
    if (forced && last.state !== 'Succeeded')
      return this.setStatus(shoot, { lastOperation: operation('Delete', 'Succeeded', 100), lastErrors: null });
    if (last.state === 'Succeeded' && finalizers.includes(GARDENER_FINALIZER)) {
      return this.patch(shoot, {
        metadata: {
          finalizers: finalizers.filter((f) => f !== GARDENER_FINALIZER),
          resourceVersion: shoot.metadata.resourceVersion,
        },
      });
    }
    if ((last.state === 'Error' || last.state === 'Aborted') && !this.faults.has(key(shoot))) {
      return this.setStatus(shoot, { lastOperation: operation('Delete', 'Pending', 0), lastErrors: null });
    }
    return undefined;
  }

  private nextProgress(current: number): number | undefined {
    return (this.options.progressSteps ?? [50]).find((p) => p > current);
  }

  private baseStatus(shoot: ShootWithMeta): ShootStatus {
    const project = (shoot.metadata.namespace ?? '').replace(/^garden-/, '');
    return {
      gardener: {
        id: 'gardenlet-simulator',
        name: 'gardenlet-simulator',
        version: this.options.gardenerVersion ?? 'v1.141.0',
      },
      hibernated: false,
      technicalID: `shoot--${project}--${shoot.metadata.name}`,
      uid: shoot.metadata.uid,
    };
  }

  /**
   * What gardener-apiserver's `adminkubeconfig` reads: the `<shoot>.ca-client` InternalSecret (it
   * signs the client certificate) and the `<shoot>.ca-cluster` ConfigMap (the server CA). With the
   * local kube-apiserver's client CA, the issued kubeconfig really works against it.
   */
  private async ensureAdminKubeconfigInputs(shoot: ShootWithMeta): Promise<string | undefined> {
    const cluster = this.options.runtimeCluster;
    if (!cluster) return undefined;
    const namespace = shoot.metadata.namespace ?? '';
    const owner = [
      {
        apiVersion: SHOOT.apiVersion,
        kind: SHOOT.kind,
        name: shoot.metadata.name,
        uid: shoot.metadata.uid ?? '',
        controller: true,
      },
    ];
    const objects: KubeObject[] = [
      // What Gardener deploys into every Shoot: its admins' group is cluster-admin there.
      ...SHOOT_ADMINS_GROUPS.map((group) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: group },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
      })),
      {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'InternalSecret',
        metadata: { name: `${shoot.metadata.name}.ca-client`, namespace, ownerReferences: owner },
        type: 'Opaque',
        data: { 'ca.crt': base64(cluster.clientCACert), 'ca.key': base64(cluster.clientCAKey) },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${shoot.metadata.name}.ca-cluster`, namespace, ownerReferences: owner },
        data: { 'ca.crt': cluster.caCert },
      },
    ];
    for (const object of objects) {
      const applied = await this.options.garden.apply(object, 'gardenlet-simulator', { force: true });
      if (!applied.ok) return `apply ${object.kind} ${object.metadata.name}: ${describeFailure(applied)}`;
    }
    return undefined;
  }

  private async setStatus(shoot: ShootWithMeta, status: Record<string, unknown>): Promise<string | undefined> {
    const result = await this.options.garden.patch(
      { ...SHOOT, namespace: shoot.metadata.namespace, name: shoot.metadata.name },
      { metadata: { resourceVersion: shoot.metadata.resourceVersion }, status },
      CONTENT_TYPE.mergePatch,
      'status',
    );
    // A conflict means someone wrote in between; the next pass sees the new object.
    return result.ok || result.status === 409 || result.status === 404
      ? undefined
      : `status: ${describeFailure(result)}`;
  }

  private async patch(shoot: ShootWithMeta, patch: Record<string, unknown>): Promise<string | undefined> {
    const result = await this.options.garden.patch(
      { ...SHOOT, namespace: shoot.metadata.namespace, name: shoot.metadata.name },
      patch,
    );
    return result.ok || result.status === 409 || result.status === 404
      ? undefined
      : `update: ${describeFailure(result)}`;
  }
}

/** A Shoot's `status.lastOperation` as gardenlet writes it; test/helpers/projects.ts finishes deletions with it. */
export function operation(type: string, state: OperationState, progress: number, description?: string) {
  return {
    type,
    state,
    progress,
    description: description ?? `${type} ${state.toLowerCase()}`,
    lastUpdateTime: rfc3339Seconds(new Date()),
  };
}

function isFinal(state: string): boolean {
  return state === 'Succeeded' || state === 'Failed';
}

function isRetryPending(state: string): boolean {
  return state === 'Error' || state === 'Aborted';
}

function key(shoot: ShootWithMeta): string {
  return `${shoot.metadata.namespace}/${shoot.metadata.name}`;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
