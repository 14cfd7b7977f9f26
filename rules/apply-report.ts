// What the applier could not do, Shoot by Shoot, as one ConfigMap in garden-<project> that the backfiller
// reads into the Runtimes' status (KIM's SeedNotFound, "Gardener API create error", "… shoot patch error", and
// the SKR step that failed).
// A report like a Flux Kustomization's status: recomputed by every sync from the Garden's answers, never
// an input to the applier itself. A ConfigMap because a refused create leaves no Shoot to annotate, and the
// applier knows the Garden only. Pure: the sync's report in, the ConfigMap (or its facts) out.
import { stringify } from 'safe-stable-stringify';
import type { KubeObject } from '../model/kube-object.js';
import {
  ANNOTATION_RUNTIME_GENERATION,
  APPLY_REPORT_NAME,
  APPLY_REPORT_LABEL,
  APPLY_REPORT_LABEL_VALUE,
} from '../model/contract.js';
import { isJsonObject } from '../model/json.js';
import {
  SKR_ERROR_STEPS,
  type PipelineState,
  type RegistryCacheError,
  type SkrError,
} from '../model/pipeline-facts.js';

const REPORT_KEY = 'report.json';

/** The applier's part of PipelineState, with the Runtime generation the desired Shoot was rendered from. */
export type ApplyFacts = Pick<
  PipelineState,
  'generation' | 'seedNotFound' | 'applyError' | 'skrError' | 'registryCacheError'
>;

/** What the report reads of an applier plan entry: the Shoot, a missing Seed, the desired manifest's annotations. */
export interface ReportedEntry {
  shoot: string;
  seedNotFound?: string;
  object: { manifest?: { metadata: { annotations?: Record<string, string> } } };
}

/** A write the sync could not make: the Shoot, the API server's status (0: no answer) and why. */
export interface FailedWrite {
  shoot: string;
  status?: number;
  lines: readonly string[];
}

/** Bounds the ConfigMap (1 MiB at most): a mass failure reports its first Shoots, and how many more; messages cut. */
const MAX_SHOOTS = 1_000;
const MAX_MESSAGE = 512;

/** An SKR the sync could not configure: the Shoot, and the step with its message and the tree it tried. */
export interface FailedSkr {
  shoot: string;
  error: SkrError;
}

/** A Shoot whose registry caches' credentials the sync could not copy before writing it (registry-cache-sync.ts). */
export interface FailedRegistryCache {
  shoot: string;
  error: RegistryCacheError;
}

/**
 * The facts of one sync: creates blocked for want of a Seed, writes Gardener refused for good (a 4xx but a
 * conflict, a rate limit, a timeout, a vanished object or refused credentials — the next sync retries those, as
 * it does an unreachable Garden or a 5xx), SKRs it could not configure and registry caches' credentials it could
 * not copy (whatever the cause: the next sync tries again, and until then the Runtime shows KIM's condition).
 */
export function applyFacts(
  entries: readonly ReportedEntry[],
  result: { failed: readonly FailedWrite[] } | undefined,
  skr: readonly FailedSkr[] = [],
  registryCache: readonly FailedRegistryCache[] = [],
): Map<string, ApplyFacts> {
  const byShoot = new Map(entries.map((entry) => [entry.shoot, entry]));
  const facts = new Map<string, ApplyFacts>();
  const generationOf = (shoot: string): { generation?: number } => {
    const text = byShoot.get(shoot)?.object.manifest?.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION];
    const generation = typeof text === 'string' ? Number(text) : NaN;
    return Number.isSafeInteger(generation) ? { generation } : {};
  };
  for (const entry of entries) {
    if (entry.seedNotFound !== undefined)
      facts.set(entry.shoot, { ...generationOf(entry.shoot), seedNotFound: entry.seedNotFound });
  }
  for (const failed of result?.failed ?? []) {
    const status = failed.status ?? 0;
    // Not a rejection: a conflict, a rate limit, a Shoot gone meanwhile (404), a timeout (408), credentials (401, the whole sync's problem).
    if (status < 400 || status >= 500 || [401, 404, 408, 409, 429].includes(status)) continue;
    facts.set(failed.shoot, { ...generationOf(failed.shoot), applyError: failed.lines.join('; ') });
  }
  for (const failed of skr)
    facts.set(failed.shoot, { ...generationOf(failed.shoot), ...facts.get(failed.shoot), skrError: failed.error });
  for (const failed of registryCache)
    facts.set(failed.shoot, {
      ...generationOf(failed.shoot),
      ...facts.get(failed.shoot),
      registryCacheError: failed.error,
    });
  return facts;
}

/** The ConfigMap to apply: stable JSON (sorted keys), so equal facts are equal bytes and need no write. */
export function applyReportConfigMap(
  namespace: string,
  commit: string,
  facts: ReadonlyMap<string, ApplyFacts>,
): KubeObject {
  const names = [...facts.keys()].sort();
  const shoots = Object.fromEntries(
    names.slice(0, MAX_SHOOTS).map((name) => [name, cutMessages(facts.get(name) as ApplyFacts)]),
  );
  const more = names.length - MAX_SHOOTS;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: APPLY_REPORT_NAME, namespace, labels: { [APPLY_REPORT_LABEL]: APPLY_REPORT_LABEL_VALUE } },
    data: { [REPORT_KEY]: `${stringify({ commit, shoots, ...(more > 0 && { notListed: more }) }, null, 2) ?? '{}'}\n` },
  };
}

/** Whether the live report (undefined: none) already says what `desired` says: then the sync writes nothing. */
export function reportUnchanged(live: KubeObject | undefined, desired: KubeObject): boolean {
  const text = (object: KubeObject | undefined) => (object?.data as Record<string, string> | undefined)?.[REPORT_KEY];
  const labels = (live?.metadata.labels ?? {}) as Record<string, string>;
  return live !== undefined && text(live) === text(desired) && labels[APPLY_REPORT_LABEL] === APPLY_REPORT_LABEL_VALUE;
}

/** The commit a live report was written at. */
export function readApplyReportCommit(configMap: KubeObject): string | undefined {
  const value = parsed(configMap);
  return isJsonObject(value) && typeof value.commit === 'string' ? value.commit : undefined;
}

function parsed(configMap: KubeObject | undefined): unknown {
  const text = (configMap?.data as Record<string, unknown> | undefined)?.[REPORT_KEY];
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The facts as the report carries them, by Shoot; a missing or unreadable report has none. */
export function readApplyReport(configMap: KubeObject | undefined): Map<string, ApplyFacts> {
  const value = parsed(configMap);
  const shoots = isJsonObject(value) && isJsonObject(value.shoots) ? value.shoots : {};
  const facts = new Map<string, ApplyFacts>();
  for (const [name, entry] of Object.entries(shoots)) {
    if (!isJsonObject(entry)) continue;
    const read: ApplyFacts = {};
    if (typeof entry.generation === 'number' && Number.isSafeInteger(entry.generation))
      read.generation = entry.generation;
    if (typeof entry.seedNotFound === 'string') read.seedNotFound = entry.seedNotFound;
    if (typeof entry.applyError === 'string') read.applyError = entry.applyError;
    const skrError = readSkrError(entry.skrError);
    if (skrError) read.skrError = skrError;
    const registryCacheError = readRegistryCacheError(entry.registryCacheError);
    if (registryCacheError) read.registryCacheError = registryCacheError;
    if (read.seedNotFound !== undefined || read.applyError !== undefined || skrError || registryCacheError)
      facts.set(name, read);
  }
  return facts;
}

function readSkrError(value: unknown): SkrError | undefined {
  if (!isJsonObject(value)) return undefined;
  const { step, message, tree } = value;
  if (!SKR_ERROR_STEPS.includes(step as SkrError['step']) || typeof message !== 'string' || typeof tree !== 'string')
    return undefined;
  return { step: step as SkrError['step'], message, tree };
}

function readRegistryCacheError(value: unknown): RegistryCacheError | undefined {
  if (!isJsonObject(value) || typeof value.message !== 'string' || typeof value.tree !== 'string') return undefined;
  return { message: value.message, tree: value.tree };
}

function cutMessages(facts: ApplyFacts): ApplyFacts {
  const cut = (text: string) => (text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`);
  return {
    ...(facts.generation !== undefined && { generation: facts.generation }),
    ...(facts.seedNotFound !== undefined && { seedNotFound: cut(facts.seedNotFound) }),
    ...(facts.applyError !== undefined && { applyError: cut(facts.applyError) }),
    ...(facts.skrError !== undefined && { skrError: { ...facts.skrError, message: cut(facts.skrError.message) } }),
    ...(facts.registryCacheError !== undefined && {
      registryCacheError: { ...facts.registryCacheError, message: cut(facts.registryCacheError.message) },
    }),
  };
}
