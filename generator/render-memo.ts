// A long-running generator (`--watch`) renders again only what may have changed. A Shoot whose
// render equalled main is remembered with the key of everything that render depended on — the
// Runtime, the conversion settings, main's folder (by tree oid) and the Garden's live Shoot — and is
// skipped while that key stays the same. A key that differs only costs a render; it can never hide a change.
import { createHash } from 'node:crypto';
import type { Runtime } from '../model/runtime.js';

export class RenderMemo {
  private readonly unchanged = new Map<string, string>();

  isUnchanged(shoot: string, key: string): boolean {
    return this.unchanged.get(shoot) === key;
  }

  remember(shoot: string, key: string): void {
    this.unchanged.set(shoot, key);
  }

  /** Drops Shoots no longer rendered, so the memo holds one entry per Runtime at most. */
  keepOnly(shoots: ReadonlySet<string>): void {
    for (const shoot of this.unchanged.keys()) if (!shoots.has(shoot)) this.unchanged.delete(shoot);
  }
}

/**
 * The render's inputs as one digest. Of the Runtime only what the converter reads: its status and
 * resourceVersion change with every status write and must not force a render.
 */
export function renderKey(runtime: Runtime, ...others: readonly string[]): string {
  const { name, namespace, labels, annotations, generation } = runtime.metadata;
  const hash = createHash('sha1').update(JSON.stringify([name, namespace, labels, annotations, generation, runtime.spec]));
  for (const other of others) hash.update('\0').update(other);
  return hash.digest('hex');
}
