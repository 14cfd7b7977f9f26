// The text of kyma-provisioning-info's `details` (docs/skr.md): KIM's KymaProvisioningInfo as sigs.k8s.io/yaml
// writes it (pkg/gardener/skrdetails/configmap.go at f271b80a): JSON turned into go-yaml v2's block style, every
// map's keys sorted, lists flush under their key. The generator writes it without the two live fields; the applier
// adds them from the Garden when it applies the ConfigMap. Pure.
import { ConfigError } from '../model/errors.js';
import { isJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { toCanonicalYaml } from './canonical-yaml.js';

/** The ConfigMap's one key. */
export const PROVISIONING_DETAILS_KEY = 'details';

/** What only the Garden knows when the applier applies: the Seed's region, the Shoot's last operation's time. */
export interface LiveDetails {
  /** The Seed's spec.provider.region for the live Shoot's spec.seedName. */
  seedRegion?: string;
  /** The live Shoot's status.lastOperation.lastUpdateTime (RFC 3339). */
  lastReconcileTime?: string;
}

const INDENT = '  ';

/**
 * The details as KIM's YAML: keys sorted in every map (go-yaml v2 sorts the map JSON becomes), a nested map
 * indented by two spaces, a list flush under its key, empty maps and lists as `{}` and `[]`. Strings are quoted
 * where a YAML reader could take them for something else, as the landscape repo's YAML is (canonical-yaml.ts):
 * for the values KIM writes here (ids, regions, machine types, CIDRs) that is go-yaml's own choice.
 */
export function provisioningDetails(details: Record<string, unknown>): string {
  const lines: string[] = [];
  writeMap(lines, details, '');
  return `${lines.join('\n')}\n`;
}

/**
 * A copy of the ConfigMap whose details carry the live fields (an empty or missing one stays out, as KIM's
 * `omitzero` leaves a zero value out). Throws ConfigError when its details are not a YAML map.
 */
export function withLiveDetails<T extends KubeObject>(configMap: T, live: LiveDetails): T {
  const source = `ConfigMap ${configMap.metadata.namespace ?? ''}/${configMap.metadata.name} data.${PROVISIONING_DETAILS_KEY}`;
  const data = isJsonObject(configMap['data']) ? configMap['data'] : {};
  const text = data[PROVISIONING_DETAILS_KEY];
  const details = typeof text === 'string' ? parseYaml11(text, source) : undefined;
  if (!isJsonObject(details)) throw new ConfigError(source, '', 'is no YAML map of provisioning details');
  const { seedRegion, lastReconcileTime } = live;
  const filled = {
    ...details,
    ...(seedRegion && { seedRegion }),
    ...(lastReconcileTime && { lastReconcileTime: metav1Time(lastReconcileTime) }),
  };
  return { ...configMap, data: { ...data, [PROVISIONING_DETAILS_KEY]: provisioningDetails(filled) } };
}

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds. Text that is no time stays as given. */
function metav1Time(text: string): string {
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? text : time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function writeMap(lines: string[], map: Record<string, unknown>, pad: string): void {
  const keys = Object.keys(map)
    .filter((key) => map[key] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) writeEntry(lines, `${pad}${scalar(key)}:`, map[key], pad, pad + INDENT);
}

/** `head value`, or `head` followed by the block of a non-empty map (at `mapPad`) or list (at `listPad`). */
function writeEntry(lines: string[], head: string, value: unknown, listPad: string, mapPad: string): void {
  if (Array.isArray(value) && value.length > 0) {
    lines.push(head);
    writeList(lines, value, listPad);
  } else if (isNonEmptyMap(value)) {
    lines.push(head);
    writeMap(lines, value, mapPad);
  } else {
    lines.push(`${head} ${scalar(value)}`);
  }
}

/** Each item `- …`; a map or list item starts on the dash's line and continues two spaces in. */
function writeList(lines: string[], list: readonly unknown[], pad: string): void {
  for (const item of list) {
    const start = lines.length;
    const inner = pad + INDENT;
    if ((Array.isArray(item) && item.length > 0) || isNonEmptyMap(item)) {
      if (Array.isArray(item)) writeList(lines, item, inner);
      else writeMap(lines, item, inner);
      lines[start] = `${pad}- ${(lines[start] as string).slice(inner.length)}`;
    } else {
      lines.push(`${pad}- ${scalar(item ?? null)}`);
    }
  }
}

function isNonEmptyMap(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && Object.values(value).some((v) => v !== undefined);
}

const scalarTexts = new Map<string, string>();
/** Bounds the cache in a long-running generator; ids differ per Runtime, keys and most values repeat. */
const SCALAR_TEXTS_KEPT = 50_000;

/** A scalar (or empty collection) on one line, quoted as the landscape repo quotes it. */
function scalar(value: unknown): string {
  if (typeof value !== 'string') return toCanonicalYaml(value).slice(0, -1);
  let text = scalarTexts.get(value);
  if (text === undefined) {
    text = toCanonicalYaml(value).slice(0, -1);
    if (scalarTexts.size < SCALAR_TEXTS_KEPT) scalarTexts.set(value, text);
  }
  return text;
}
