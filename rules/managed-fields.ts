// The part of a live object kimops manages: the fields main's manifest sets, plus (for the applier) those its
// field manager applied before. Everything else the live object holds — status, server-set metadata, what
// gardener-apiserver defaulted (`spec.networking.ipFamilies`, a worker's `updateStrategy`, `cri`, …), other
// managers' fields — is not kimops's, so no difference there is drift, a write or an adoption. Flux and Argo CD
// diff this way (server-side apply's field ownership); the applier (applier/plan.ts) and the generator
// (generator/render-changes.ts) both compare through it (ADR 0009). Pure.
import { isJsonObject } from '../model/json.js';
import type { Shoot } from '../model/shoot.js';
import { hasUniqueKeys } from './semantic-diff.js';

/** A managedFields `fieldsV1` subtree: `f:<field>` for fields, `k:{"name":"a"}` for items of a keyed list. */
export type OwnedFields = Record<string, unknown> | undefined;

/**
 * Lists the gardener-apiserver merges by a key under server-side apply (`+patchMergeKey` in Gardener's
 * pkg/apis/core/v1beta1/types_shoot.go). Every other list is atomic: an apply replaces it whole.
 */
const MERGE_KEYS: Record<string, string> = {
  'spec.provider.workers': 'name',
  'spec.tolerations': 'key',
};

/**
 * Atomic lists whose items are still matched by a field when cutting the live list down (so Gardener's
 * defaults inside an item are not mistaken for changes); the same keys as semantic-diff.ts.
 */
const ITEM_KEYS: Record<string, string> = {
  'spec.extensions': 'type',
  'spec.resources': 'name',
  'spec.accessRestrictions': 'name',
};

/**
 * `live` cut down to what `wanted` sets, plus what `owned` claims. Maps keep the keys `wanted` sets; a
 * merge-keyed list (workers) keeps the items `wanted` names (and those `owned` claims), each cut down alike; an
 * atomic list is `wanted`'s whole, so it keeps every live item (an extra one is a difference), each item
 * matched by its key or position and cut down; anything else is the live value.
 */
export function managedPart(live: unknown, wanted: unknown, owned?: OwnedFields): unknown {
  return project(live, wanted, owned, '');
}

/**
 * The live Shoot as far as main's Shoot manages it: what the converter's update mode may read when the
 * generator renders against the Garden, so that only a value main states and Gardener changed (a
 * maintenance version) comes back into Git, never a default the API server added.
 */
export function managedShoot(live: Shoot, main: Shoot): Shoot {
  return managedPart(live, main) as Shoot;
}

function project(live: unknown, wanted: unknown, owned: OwnedFields, pattern: string): unknown {
  if (isJsonObject(live) && isJsonObject(wanted)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(live)) {
      const childPattern = pattern ? `${pattern}.${key}` : key;
      if (key in wanted && wanted[key] !== undefined)
        out[key] = project(value, wanted[key], owned?.[`f:${key}`] as OwnedFields, childPattern);
      else if (owned && `f:${key}` in owned) out[key] = value;
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(wanted)) {
    const mergeKey = MERGE_KEYS[pattern];
    const itemKey = mergeKey ?? ITEM_KEYS[pattern];
    if (itemKey === undefined || !hasUniqueKeys(live, itemKey) || !hasUniqueKeys(wanted, itemKey)) {
      return live.map((item, i) => (i < wanted.length ? project(item, wanted[i], undefined, `${pattern}[]`) : item));
    }
    const wantedByKey = new Map(wanted.map((item) => [(item as Record<string, unknown>)[itemKey], item]));
    const out: unknown[] = [];
    for (const item of live) {
      const key = (item as Record<string, unknown>)[itemKey];
      const match = wantedByKey.get(key);
      const itemOwned = mergeKey !== undefined ? ownedItem(owned, mergeKey, key) : undefined;
      if (match !== undefined) out.push(project(item, match, itemOwned, `${pattern}[]`));
      // An atomic list is replaced whole; a merged list loses only the items this manager applied before.
      else if (mergeKey === undefined || itemOwned !== undefined) out.push(item);
    }
    return out;
  }
  return live;
}

function ownedItem(owned: OwnedFields, mergeKey: string, value: unknown): OwnedFields {
  if (!owned) return undefined;
  for (const [key, fields] of Object.entries(owned)) {
    if (!key.startsWith('k:')) continue;
    try {
      const item: unknown = JSON.parse(key.slice(2));
      if (isJsonObject(item) && item[mergeKey] === value) return isJsonObject(fields) ? fields : {};
    } catch {
      // Not a key kimops can read: not an item it can claim.
    }
  }
  return undefined;
}
