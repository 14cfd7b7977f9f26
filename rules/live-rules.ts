// What the live Shoot keeps in an update, whatever the Runtime or Git says (KIM's patch rules,
// docs/contracts/kim-converter.md §3): versions are never downgraded, zones never removed, the live worker order,
// update strategy and provider configs stay, fields Gardener fixes at creation keep their live values, and a
// customer's dedicated audit-log tenant stays (audit-log.ts, ADR 0003). One implementation for both users: the
// converter's update mode (extenders/provider.ts, versions.ts, dns.ts, convert-runtime.ts, audit-log-tenant.ts)
// and the applier, which holds main's manifest against the live Shoot right before it applies (`keepLive`), so a
// revert, a stale manifest or `drift: correct` cannot ask Gardener for what it forbids or move a customer's audit
// logs. Pure.
import { stringify } from 'safe-stable-stringify';
import { asJsonObject } from '../model/json.js';
import type { JsonObject, Shoot, Worker } from '../model/shoot.js';
import { cloneJson } from '../model/clone.js';
import { neverDowngrade } from '../model/semver.js';
import { AUDITLOG_EXTENSION_TYPE, keepLiveDedicatedAuditLog } from './audit-log.js';

/**
 * A worker adjusted to its live counterpart: live zones keep their order and are never removed
 * (Gardener rejects removing a zone), new zones are appended; a higher live image version of the same
 * image wins (no downgrade); the live update strategy is inherited when none is set.
 */
function alignWorkerWithLive(worker: Worker, live: Worker | undefined): Worker {
  if (!live) return worker;
  const liveZones = live.zones ?? [];
  const aligned: Worker = {
    ...worker,
    zones: [...liveZones, ...(worker.zones ?? []).filter((z) => !liveZones.includes(z))],
  };
  const image = worker.machine.image;
  const liveImage = live.machine.image;
  if (image && liveImage?.name && liveImage.name === image.name && liveImage.version) {
    aligned.machine = {
      ...worker.machine,
      image: { ...image, version: neverDowngrade(image.version ?? '', liveImage.version) },
    };
  }
  if (aligned.updateStrategy === undefined && live.updateStrategy !== undefined)
    aligned.updateStrategy = live.updateStrategy;
  return aligned;
}

/** Live workers keep their position; workers new to the Shoot follow, in the given order. See ADR 0002. */
function inLiveOrder(workers: Worker[], live: Worker[]): Worker[] {
  const position = (w: Worker) => {
    const index = live.findIndex((l) => l.name === w.name);
    return index < 0 ? live.length : index;
  };
  return workers
    .map((w, i) => ({ w, i }))
    .sort((a, b) => position(a.w) - position(b.w) || a.i - b.i)
    .map(({ w }) => w);
}

/** The workers aligned with the live ones, in live order. */
export function workersAlignedWithLive(workers: Worker[], live: Worker[]): Worker[] {
  return inLiveOrder(
    workers.map((w) =>
      alignWorkerWithLive(
        w,
        live.find((l) => l.name === w.name),
      ),
    ),
    live,
  );
}

/** The zones of an infrastructure config's networks (Azure's zoned layout; other providers have none). */
function zonesOfConfig(config: JsonObject): unknown[] {
  const { zones } = asJsonObject(config.networks);
  return Array.isArray(zones) ? zones : [];
}

/**
 * Whether the live infrastructure and control-plane configs stay as they are: yes unless a zone is
 * added, and always for an Azure-lite Shoot (one without zones in its infrastructure config).
 */
export function keepsLiveProviderConfigs(type: string, liveInfra: JsonObject, addedZones: readonly string[]): boolean {
  return addedZones.length === 0 || (type === 'azure' && zonesOfConfig(liveInfra).length === 0);
}

/** The zones `workers` have that the live workers lack. */
export function zonesAdded(workers: Worker[], liveWorkers: Worker[]): string[] {
  const liveZones = uniqueZones(liveWorkers);
  return uniqueZones(workers).filter((z) => !liveZones.includes(z));
}

/**
 * Gardener fixes these at creation; KIM's patch leaves them out and server-side apply keeps the live
 * values. A Git manifest must state them, so they are copied from the live Shoot into `draft`.
 */
export function keepCreateOnlyFields(draft: Shoot, live: Shoot): void {
  if (live.spec.tolerations) draft.spec.tolerations = structuredClone(live.spec.tolerations);
  const liveServiceAccount = live.spec.kubernetes?.kubeAPIServer?.serviceAccountConfig;
  if (liveServiceAccount) {
    draft.spec.kubernetes.kubeAPIServer = {
      ...draft.spec.kubernetes.kubeAPIServer,
      serviceAccountConfig: structuredClone(liveServiceAccount),
    };
  }
  const { ipFamilies, providerConfig } = live.spec.networking ?? {};
  if (ipFamilies) draft.spec.networking.ipFamilies = [...ipFamilies];
  if (providerConfig) draft.spec.networking.providerConfig = structuredClone(providerConfig);
}

/** A live Shoot on internal (or legacy) DNS, i.e. without providers, keeps it: Gardener cannot move a Shoot's domain. */
export function keepsLiveDns(live: Shoot | undefined): boolean {
  const dns = live?.spec.dns;
  return dns !== undefined && (dns.providers ?? []).length === 0;
}

/** A field where the live value won over the desired one, and why (for the sync report). */
export interface KeptLive {
  path: string;
  why: string;
}

/**
 * The desired Shoot (main's manifest) with the live Shoot's say applied, and what that changed. For a
 * manifest the converter rendered in update mode against this same live Shoot it is the identity
 * (live-rules.test.ts checks that on the parity fixtures); it matters when the live Shoot moved on
 * after the render (maintenance updated a version) or the manifest is older than the Shoot (a revert).
 */
export function keepLive(desired: Shoot, live: Shoot): { shoot: Shoot; kept: KeptLive[] } {
  const shoot = cloneJson(desired);
  const kept: KeptLive[] = [];
  // Only where main states a value and the live one differs: a field main leaves out takes the live value
  // (Gardener's default, an inherited setting) without anything worth telling.
  const note = (path: string, before: unknown, after: unknown, why: string) => {
    if (before !== undefined && stringify(before) !== stringify(after)) kept.push({ path, why });
  };

  const version = shoot.spec.kubernetes?.version;
  if (version !== undefined) {
    shoot.spec.kubernetes.version = neverDowngrade(version, live.spec.kubernetes?.version);
    note(
      'spec.kubernetes.version',
      version,
      shoot.spec.kubernetes.version,
      `live ${shoot.spec.kubernetes.version} kept over ${version}: Gardener never downgrades a Kubernetes version`,
    );
  }

  const liveWorkers = live.spec.provider?.workers ?? [];
  const workers = shoot.spec.provider.workers ?? [];
  const aligned = workersAlignedWithLive(workers, liveWorkers);
  for (const worker of aligned) {
    const before = workers.find((w) => w.name === worker.name);
    const at = `spec.provider.workers[${worker.name}]`;
    note(
      `${at}.zones`,
      before?.zones,
      worker.zones,
      `live zones ${(worker.zones ?? []).join(', ')} kept: Gardener never removes a zone`,
    );
    note(
      `${at}.machine.image.version`,
      before?.machine.image?.version,
      worker.machine.image?.version,
      `live image version ${worker.machine.image?.version ?? ''} kept: never downgraded`,
    );
    note(
      `${at}.updateStrategy`,
      before?.updateStrategy,
      worker.updateStrategy,
      'the live update strategy is inherited',
    );
  }
  shoot.spec.provider.workers = aligned;

  const liveInfra = live.spec.provider?.infrastructureConfig;
  if (liveInfra && keepsLiveProviderConfigs(shoot.spec.provider.type, liveInfra, zonesAdded(aligned, liveWorkers))) {
    const { infrastructureConfig, controlPlaneConfig } = shoot.spec.provider;
    shoot.spec.provider.infrastructureConfig = cloneJson(liveInfra);
    if (live.spec.provider.controlPlaneConfig)
      shoot.spec.provider.controlPlaneConfig = cloneJson(live.spec.provider.controlPlaneConfig);
    else delete shoot.spec.provider.controlPlaneConfig;
    const why = 'the live config is kept: it is regenerated only when a zone is added';
    note('spec.provider.infrastructureConfig', infrastructureConfig, shoot.spec.provider.infrastructureConfig, why);
    note('spec.provider.controlPlaneConfig', controlPlaneConfig, shoot.spec.provider.controlPlaneConfig, why);
  }

  const createOnly = {
    'spec.tolerations': (s: Shoot) => s.spec.tolerations,
    'spec.kubernetes.kubeAPIServer.serviceAccountConfig': (s: Shoot) =>
      s.spec.kubernetes?.kubeAPIServer?.serviceAccountConfig,
    'spec.networking.ipFamilies': (s: Shoot) => s.spec.networking.ipFamilies,
    'spec.networking.providerConfig': (s: Shoot) => s.spec.networking.providerConfig,
  };
  const before = Object.entries(createOnly).map(([path, read]) => [path, read(shoot)] as const);
  keepCreateOnlyFields(shoot, live);
  for (const [path, value] of before)
    note(
      path,
      value,
      createOnly[path as keyof typeof createOnly](shoot),
      'set at creation only: the live value is kept',
    );

  if (keepsLiveDns(live)) {
    const dns = shoot.spec.dns;
    shoot.spec.dns = structuredClone(live.spec.dns);
    note(
      'spec.dns',
      dns,
      shoot.spec.dns,
      'the live Shoot has no DNS providers (internal domain): Gardener cannot move its domain',
    );
  }

  // Not noted through `note`: main leaving the extension out would remove it, so that is worth telling too.
  const dedicated = keepLiveDedicatedAuditLog(shoot, live);
  if (dedicated)
    kept.push({
      path: `spec.extensions[${AUDITLOG_EXTENSION_TYPE}]`,
      why: `the live Shoot is on the customer's dedicated audit log (tenant ${dedicated.tenantID}): it is never moved back (ADR 0003)`,
    });
  return { shoot, kept };
}

/** Unique zones across workers, first-seen order (KIM's getNetworkingZonesFromWorkers). */
export function uniqueZones(workers: Worker[]): string[] {
  return [...new Set(workers.flatMap((w) => w.zones ?? []))];
}
