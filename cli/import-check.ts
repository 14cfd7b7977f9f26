// `kimops import`'s check of one imported Runtime: rendered in update mode against the Shoot it came from with
// kimops's converter, then the applier's plan over that render against the same Shoot and its ConfigMaps — the
// take-over a landscape repo holding it would do. The Runtime passes when the plan writes nothing but kimops's
// ownership labels (and the Runtime generation the Shoot records, bookkeeping). Pure; in cli/ because it joins the
// generator's render and the applier's plan, which no component may do.
import { desiredFromFiles } from '../applier/desired.js';
import { planSync } from '../applier/plan.js';
import { EU_ACCESS_PLATFORM_REGIONS } from '../generator/convert/extenders/placement.js';
import { renderRuntimes } from '../generator/render-runtimes.js';
import { ANNOTATION_RUNTIME_GENERATION } from '../model/contract.js';
import { DEFAULT_MASS_DELETION } from '../model/kimops-config.js';
import type { KubeObject } from '../model/kube-object.js';
import type { ConversionSettings } from '../model/landscape.js';
import { REQUIRED_RUNTIME_LABELS, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { fileMapOf } from '../rules/landscape-layout.js';
import type { ImportedRuntime } from '../rules/runtime-from-shoot.js';
import type { FieldChange } from '../rules/semantic-diff.js';

/** The generation the KCP gives a Runtime it creates from the file. */
const NEW_RUNTIME_GENERATION = 1;
/** kimops's labels, which every take-over adds: no change to the Shoot. */
const OWN_LABEL = /^metadata\.labels\["kimops\.kyma-project\.io\/[a-z-]+"\]$/;
/** An object without labels gets the whole map: only kimops's labels may be in it. */
const LABELS_MAP = 'metadata.labels';
const OWN_LABEL_PREFIX = 'kimops.kyma-project.io/';
const GENERATION_PATH = `metadata.annotations[${JSON.stringify(ANNOTATION_RUNTIME_GENERATION)}]`;

export type ImportCheck =
  /** `bookkeeping`: what the take-over writes besides kimops's labels that changes nothing in the cluster. */
  { ok: true; bookkeeping: string[] } | { ok: false; changes: string[] } | { ok: false; refusal: string };

/**
 * The Runtime as the check renders it: what the file leaves out filled with stand-ins that change no Shoot field
 * (no administrators — they are the SKR's —, a platform region on the same side of EU access as the Shoot, the
 * missing labels as "unknown"), and the generation the KCP will give it.
 */
function runtimeForCheck(imported: ImportedRuntime, live: Shoot): Runtime {
  const euAccess = live.spec.accessRestrictions?.some((r) => r.name === 'eu-access-only') === true;
  const labels = { ...imported.metadata.labels };
  for (const label of REQUIRED_RUNTIME_LABELS) labels[label] ||= 'unknown';
  return {
    ...imported,
    metadata: { ...imported.metadata, labels, generation: NEW_RUNTIME_GENERATION },
    spec: {
      ...imported.spec,
      shoot: {
        ...imported.spec.shoot,
        platformRegion: imported.spec.shoot.platformRegion ?? (euAccess ? (EU_ACCESS_PLATFORM_REGIONS[0] ?? '') : ''),
      },
      security: { ...imported.spec.security, administrators: imported.spec.security.administrators ?? [] },
    },
  };
}

export function checkImport(
  imported: ImportedRuntime,
  live: Shoot,
  liveCompanions: readonly KubeObject[],
  settings: ConversionSettings,
  registryCacheSecrets: Record<string, string> = {},
): ImportCheck {
  const runtime = runtimeForCheck(imported, live);
  const result = renderRuntimes(
    [{ source: live.metadata.name, runtime }],
    settings,
    new Map([[live.metadata.name, live]]),
    registryCacheSecrets,
  );
  const [rendered] = result.rendered;
  if (!rendered) {
    const refusal = result.failures[0]?.message ?? `kimops crashed rendering it: ${String(result.bugs[0]?.error)}`;
    return { ok: false, refusal };
  }
  const plan = planSync({
    desired: desiredFromFiles(fileMapOf(rendered.manifests)),
    live: [live],
    liveCompanions,
    commit: 'import',
    massDeletion: DEFAULT_MASS_DELETION,
  });
  const [entry] = plan.entries;
  if (!entry) return { ok: false, refusal: 'the applier planned nothing for it (a bug in kimops)' };
  if (entry.action === 'blocked')
    return { ok: false, refusal: `the applier would not apply it: ${entry.reasons.join('; ')}` };
  const paths = [
    ...entry.object.changes.filter((change) => !isOwnLabel(change)).map((change) => change.path),
    ...entry.companions.flatMap((companion) =>
      companion.changes
        .filter((change) => !isOwnLabel(change))
        .map((change) => `companion ${companion.name} ${change.path}`),
    ),
  ];
  const changes = paths.filter((path) => path !== GENERATION_PATH);
  return changes.length > 0
    ? { ok: false, changes }
    : { ok: true, bookkeeping: paths.filter((p) => p === GENERATION_PATH) };
}

/** Whether a change only adds kimops's labels: one of them, or a whole new labels map holding nothing else. */
function isOwnLabel(change: FieldChange): boolean {
  if (OWN_LABEL.test(change.path)) return true;
  if (change.path !== LABELS_MAP || change.kind !== 'added') return false;
  const added = change.after;
  return (
    typeof added === 'object' && added !== null && Object.keys(added).every((key) => key.startsWith(OWN_LABEL_PREFIX))
  );
}
