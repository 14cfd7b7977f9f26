// The change class of one Shoot change (docs/design.md §1.5), with the reasons a reviewer reads in the PR.
// Which changes Gardener rejects and which replace nodes is recorded in docs/adr/0004-change-classes.md.
import { ANNOTATION_RUNTIME_GENERATION } from '../../model/contract.js';
import type { Shoot, Worker } from '../../model/shoot.js';
import { show } from '../../rules/change-text.js';
import { type FieldChange, sameValue, semanticDiff } from '../../rules/semantic-diff.js';
import { compareVersions, parseVersion } from '../../model/semver.js';

/**
 * create/delete/update/immutable/metadata-only follow from the two Shoots. `rollout` (a landscape
 * config or converter change touching many Shoots) and `adopt` (git follows a legitimate change
 * Gardener made to the live Shoot) depend on *why* the change happened, which only the caller knows:
 * it relabels an update with `{ ...classification, class: 'rollout' }` and keeps the reasons. So do `skr` and
 * `skr-unrequested` (only the objects inside the cluster change, skr-changes.ts): asked for by the Runtime or not.
 * And `shadow` (a change of a Shoot KIM leads: merging it changes nothing live) and `cut-over` (the leader changes:
 * kimops takes the Shoot over from KIM, or hands it back), which depend on who leads the Runtime (rules/leader.ts).
 * `bootstrap` (kimops bootstrap: a landscape's live Shoots written into main at once) is set by its caller too.
 */
export type ChangeClassName =
  | 'create'
  | 'delete'
  | 'update'
  | 'immutable'
  | 'rollout'
  | 'adopt'
  | 'metadata-only'
  | 'skr'
  | 'skr-unrequested'
  | 'shadow'
  | 'cut-over'
  | 'bootstrap';

export interface ChangeClass {
  class: ChangeClassName;
  /** Nodes get replaced or workloads interrupted (update), or a delete no Runtime asked for (its Runtime is absent, not being deleted). */
  disruptive: boolean;
  /** Sentences naming fields, shown in the PR body under the class. */
  reasons: string[];
  changes: FieldChange[];
}

export interface ClassifyInput {
  before?: Shoot;
  after?: Shoot;
  /** The Shoot disappears because KEB is deleting its Runtime (deprovisioning); otherwise the delete waits for review. */
  runtimeDeleted?: boolean;
}

/** The class of a change, or undefined when the two Shoots do not differ (nothing to propose). */
export function classifyChange({ before, after, runtimeDeleted }: ClassifyInput): ChangeClass | undefined {
  const changes = semanticDiff(before, after);
  if (changes.length === 0) return undefined;
  if (!before)
    return { class: 'create', disruptive: false, reasons: ['a new Runtime: Gardener creates the cluster'], changes };
  if (!after) {
    return runtimeDeleted
      ? {
          class: 'delete',
          disruptive: false,
          reasons: ['the Runtime was deleted (deprovisioning): Gardener deletes the cluster'],
          changes,
        }
      : {
          class: 'delete',
          disruptive: true,
          reasons: [
            'no Runtime asked for this delete (none is being deleted for it): deleting it destroys a cluster nobody asked to delete',
          ],
          changes,
        };
  }
  const immutable = immutableReasons(before, after);
  if (immutable.length > 0) return { class: 'immutable', disruptive: true, reasons: immutable, changes };
  const reviewed = reviewedChanges(changes);
  if (reviewed.length === 0) {
    return { class: 'metadata-only', disruptive: false, reasons: [bookkeepingOnlyReason(changes)], changes };
  }
  if (reviewed.every((change) => /^metadata\.(labels|annotations)\b/.test(change.path))) {
    return {
      class: 'metadata-only',
      disruptive: false,
      reasons: [`only metadata changes: ${reviewed.map((c) => c.path).join(', ')}`],
      changes,
    };
  }
  const disruptive = disruptiveReasons(before, after, changes);
  if (disruptive.length > 0) return { class: 'update', disruptive: true, reasons: disruptive, changes };
  return {
    class: 'update',
    disruptive: false,
    reasons: [`no node is replaced: ${reviewed.map((c) => c.path).join(', ')}`],
    changes,
  };
}

/**
 * Metadata that records where a Shoot came from, not what Gardener builds: KIM's Runtime generation (how a pass
 * tells a Runtime's own change from a rollout) and kimops's own `kimops.kyma-project.io/` markers. The generation
 * changes with every Runtime edit, so a reviewer reading it among the changes and reasons reads noise.
 */
const GENERATION_PATH = `metadata.annotations[${JSON.stringify(ANNOTATION_RUNTIME_GENERATION)}]`;
const KIMOPS_METADATA = ['metadata.annotations["kimops.kyma-project.io/', 'metadata.labels["kimops.kyma-project.io/'];

export function isBookkeeping({ path }: FieldChange): boolean {
  return path === GENERATION_PATH || KIMOPS_METADATA.some((prefix) => path.startsWith(prefix));
}

/** The changes a reviewer reads: the diff without the bookkeeping. */
export function reviewedChanges(changes: readonly FieldChange[]): FieldChange[] {
  return changes.filter((change) => !isBookkeeping(change));
}

/** A Shoot that differs only in its bookkeeping is still written (the next pass compares with it), and says so. */
function bookkeepingOnlyReason(changes: readonly FieldChange[]): string {
  const generation = changes.find((c) => c.path === GENERATION_PATH);
  const what = generation
    ? `the Runtime generation it was rendered from (${show(generation.before)} → ${show(generation.after)})`
    : "kimops's own annotations";
  return `nothing in the cluster changes: the Shoot only records ${what}`;
}

/** Changes gardener-apiserver (ValidateShootSpecUpdate) or the provider extensions' admission reject. */
function immutableReasons(before: Shoot, after: Shoot): string[] {
  const reasons: string[] = [];
  const a = before.spec;
  const b = after.spec;
  const fixed = (field: string, x: unknown, y: unknown, why = 'Gardener does not allow changing it') => {
    if (!sameValue(x, y)) reasons.push(`spec.${field} ${show(x)} → ${show(y)}: ${why}`);
  };
  fixed('region', a.region, b.region);
  fixed('provider.type', a.provider.type, b.provider.type);
  fixed('cloudProfile.name', a.cloudProfile?.name, b.cloudProfile?.name, 'a Shoot stays on its CloudProfile');
  fixed('exposureClassName', a.exposureClassName, b.exposureClassName);
  fixed('networking.type', a.networking.type, b.networking.type);
  if (a.networking.pods !== undefined) fixed('networking.pods', a.networking.pods, b.networking.pods);
  if (a.networking.services !== undefined) fixed('networking.services', a.networking.services, b.networking.services);
  // Gardener core lets some nodes changes through, but the provider's VPC and subnets were cut from it.
  if (a.networking.nodes !== undefined)
    fixed(
      'networking.nodes',
      a.networking.nodes,
      b.networking.nodes,
      'the infrastructure (VPC, subnets) was created from it',
    );
  if (!ipFamiliesUpdateAllowed(a.networking.ipFamilies, b.networking.ipFamilies)) {
    fixed(
      'networking.ipFamilies',
      a.networking.ipFamilies,
      b.networking.ipFamilies,
      'only IPv4 → IPv4,IPv6 (dual-stack migration) is allowed',
    );
  }
  // The one binding switch Gardener accepts: secretBindingName → credentialsBindingName.
  const migratesToCredentials =
    a.secretBindingName !== undefined && b.secretBindingName === undefined && !!b.credentialsBindingName;
  if (!migratesToCredentials)
    fixed(
      'secretBindingName',
      a.secretBindingName,
      b.secretBindingName,
      'only the migration to credentialsBindingName may remove it',
    );
  if (a.credentialsBindingName && !b.credentialsBindingName)
    reasons.push('spec.credentialsBindingName is removed: Gardener does not allow unsetting it');
  if (a.dns?.domain !== undefined) fixed('dns.domain', a.dns.domain, b.dns?.domain);
  fixed('kubernetes.kubeControllerManager.nodeCIDRMaskSize', nodeMask(before), nodeMask(after));
  reasons.push(...versionReasons('spec.kubernetes.version', a.kubernetes.version, b.kubernetes.version, true));
  if ((a.provider.workers.length === 0) !== (b.provider.workers.length === 0)) {
    reasons.push(
      'spec.provider.workers: Gardener does not allow switching between a Shoot with workers and a workerless one',
    );
  }
  for (const [oldWorker, newWorker] of pairedWorkers(before, after)) {
    const path = `spec.provider.workers[${newWorker.name}]`;
    const oldZones = oldWorker.zones ?? [];
    const newZones = newWorker.zones ?? [];
    if (!oldZones.every((zone, i) => newZones[i] === zone)) {
      reasons.push(
        `${path}.zones ${show(oldZones)} → ${show(newZones)}: zones may only be appended, never removed or reordered`,
      );
    }
    if (isInPlace(oldWorker) !== isInPlace(newWorker)) {
      reasons.push(
        `${path}.updateStrategy ${show(oldWorker.updateStrategy)} → ${show(newWorker.updateStrategy)}: Gardener does not allow switching between rolling and in-place updates`,
      );
    }
    reasons.push(
      ...versionReasons(
        `${path}.kubernetes.version`,
        workerVersion(before, oldWorker),
        workerVersion(after, newWorker),
        !isInPlace(newWorker),
      ),
    );
  }
  return reasons;
}

/** What gardener-apiserver defaults an unset `spec.networking.ipFamilies` to. */
const DEFAULT_IP_FAMILIES = ['IPv4'];

/** Changes Gardener rolls out by replacing nodes or interrupting workloads. */
function disruptiveReasons(before: Shoot, after: Shoot, changes: FieldChange[]): string[] {
  const reasons: string[] = [];
  const minorBump = (path: string, x: string | undefined, y: string | undefined) => {
    if (x && y && minorOf(x) !== minorOf(y))
      reasons.push(`${path} ${x} → ${y}: a new Kubernetes minor version replaces every node (rolling update)`);
  };
  minorBump('spec.kubernetes.version', before.spec.kubernetes.version, after.spec.kubernetes.version);
  // Unset is Gardener's default, IPv4: writing that default down (as the update mode copies it from the live Shoot) migrates nothing.
  const oldFamilies = before.spec.networking.ipFamilies ?? DEFAULT_IP_FAMILIES;
  const newFamilies = after.spec.networking.ipFamilies ?? DEFAULT_IP_FAMILIES;
  if (newFamilies.length > oldFamilies.length)
    reasons.push(
      `spec.networking.ipFamilies ${show(oldFamilies)} → ${show(newFamilies)}: the dual-stack migration replaces every node`,
    );
  for (const [oldWorker, newWorker] of pairedWorkers(before, after)) {
    const path = `spec.provider.workers[${newWorker.name}]`;
    const rolls = (field: string, x: unknown, y: unknown, why: string) => {
      if (!sameValue(x, y)) reasons.push(`${path}.${field} ${show(x)} → ${show(y)}: ${why}`);
    };
    rolls(
      'machine.type',
      oldWorker.machine.type,
      newWorker.machine.type,
      'new machines replace the pool (rolling update)',
    );
    rolls(
      'machine.image.name',
      oldWorker.machine.image?.name,
      newWorker.machine.image?.name,
      'a new operating system replaces every node of the pool',
    );
    rolls(
      'machine.image.version',
      oldWorker.machine.image?.version,
      newWorker.machine.image?.version,
      'nodes are replaced with the new image',
    );
    rolls('volume', oldWorker.volume, newWorker.volume, 'the root disk is part of the machine: nodes are replaced');
    rolls(
      'cri.name',
      oldWorker.cri?.name,
      newWorker.cri?.name,
      'a new container runtime replaces every node of the pool',
    );
    rolls(
      'providerConfig',
      oldWorker.providerConfig,
      newWorker.providerConfig,
      'it is part of the pool hash: nodes are replaced',
    );
    const added = (newWorker.zones ?? []).filter((zone) => !(oldWorker.zones ?? []).includes(zone));
    if (added.length > 0)
      reasons.push(`${path}.zones: adds ${added.join(', ')}: new subnets and machines; the pool is spread anew`);
    if (newWorker.kubernetes?.version || oldWorker.kubernetes?.version) {
      minorBump(`${path}.kubernetes.version`, workerVersion(before, oldWorker), workerVersion(after, newWorker));
    }
  }
  const newNames = new Set(after.spec.provider.workers.map((w) => w.name));
  for (const worker of before.spec.provider.workers) {
    if (!newNames.has(worker.name))
      reasons.push(`spec.provider.workers[${worker.name}] removed: its nodes are drained and deleted`);
  }
  if (changes.some((c) => c.path.startsWith('spec.provider.infrastructureConfig'))) {
    reasons.push('spec.provider.infrastructureConfig changes: the cloud network (VPC, subnets, routes) is reconciled');
  }
  if (changes.some((c) => c.path.startsWith('spec.controlPlane.highAvailability'))) {
    reasons.push('spec.controlPlane.highAvailability changes: the control plane is moved to more replicas or zones');
  }
  return reasons;
}

/** Workers present on both sides, matched by name like Gardener's own validation does. */
function pairedWorkers(before: Shoot, after: Shoot): [Worker, Worker][] {
  const old = new Map(before.spec.provider.workers.map((worker) => [worker.name, worker]));
  return after.spec.provider.workers.flatMap((worker) => {
    const previous = old.get(worker.name);
    return previous ? [[previous, worker] as [Worker, Worker]] : [];
  });
}

/** A downgrade is always rejected; skipping a minor is rejected for the control plane and in-place pools. */
function versionReasons(
  path: string,
  x: string | undefined,
  y: string | undefined,
  minorSkipForbidden: boolean,
): string[] {
  const old = x === undefined ? undefined : parseVersion(x);
  const next = y === undefined ? undefined : parseVersion(y);
  if (x === undefined || y === undefined || !old || !next) return [];
  if (compareVersions(y, x) < 0) return [`${path} ${x} → ${y}: Gardener does not allow a Kubernetes downgrade`];
  if (minorSkipForbidden && (next.major > old.major || next.minor > old.minor + 1))
    return [`${path} ${x} → ${y}: Gardener does not allow skipping a minor version`];
  return [];
}

function ipFamiliesUpdateAllowed(x: string[] | undefined, y: string[] | undefined): boolean {
  const old = x ?? [];
  const next = y ?? [];
  if (sameValue(old, next)) return true;
  if (old.length === 0 && sameValue(next, ['IPv4'])) return true;
  if (old.length === 2 && next.length === 2) return true;
  return (old.length === 0 || sameValue(old, ['IPv4'])) && sameValue(next, ['IPv4', 'IPv6']);
}

const isInPlace = (worker: Worker) =>
  worker.updateStrategy === 'AutoInPlaceUpdate' || worker.updateStrategy === 'ManualInPlaceUpdate';
const workerVersion = (shoot: Shoot, worker: Worker) => worker.kubernetes?.version ?? shoot.spec.kubernetes.version;
const nodeMask = (shoot: Shoot) =>
  (shoot.spec.kubernetes['kubeControllerManager'] as { nodeCIDRMaskSize?: number } | undefined)?.nodeCIDRMaskSize;

function minorOf(text: string): string {
  const version = parseVersion(text);
  return version ? `${version.major}.${version.minor}` : text;
}
