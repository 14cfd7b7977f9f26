// A long-running generator (`--watch`) renders again only what may have changed. A Shoot whose
// render equalled main is remembered with the key of everything that render depended on — the
// Runtime, the conversion settings, main's folder (by tree oid) and the Garden's live Shoot — and is
// skipped while that key stays the same. A key that differs only costs a render; it can never hide a change.
import { createHash } from 'node:crypto';
import { PIPELINE_ANNOTATION } from '../model/contract.js';
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
 * Runtime objects seen before (an informer hands out the same object until it changes): digest once.
 * Runtimes are values here: a caller that changes one makes a new object, as the sources do.
 */
const runtimeDigests = new WeakMap<Runtime, string>();

/**
 * The render's inputs as one key: a digest of the Runtime — of it only what the converter reads, since
 * its status and resourceVersion change with every status write and must not force a render — and
 * the other inputs' own keys (settings digest, folder oid, live Shoot), each computed once by the caller.
 */
export function renderKey(runtime: Runtime, ...others: readonly string[]): string {
  let digest = runtimeDigests.get(runtime);
  if (digest === undefined) {
    const { name, namespace, labels, annotations, generation } = runtime.metadata;
    // The generator's own report on the Runtime is no input: writing it must not make the next pass render again.
    const read = Object.entries(annotations ?? {}).filter(([key]) => key !== PIPELINE_ANNOTATION);
    digest = createHash('sha1')
      .update(JSON.stringify([name, namespace, labels, read, generation, runtime.spec]))
      .digest('hex');
    runtimeDigests.set(runtime, digest);
  }
  return [digest, ...others].join('\0');
}

/** A short digest of a value, for inputs shared by every key of a pass (the conversion settings). */
export function digestOf(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('hex');
}
