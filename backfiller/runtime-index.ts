// Which Runtime an event about another object concerns, kept from the Runtime events: a Shoot event then finds
// the Runtimes naming it, a GardenerCluster or kubeconfig Secret event its Runtime, without a scan of 10,000.
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { RuntimeObject } from './objects.js';

export class RuntimeIndex {
  /** Shoot name → the names of the Runtimes naming it. */
  private readonly byShoot = new Map<string, Set<string>>();
  private readonly shootOf = new Map<string, string>();
  /** Runtime ID → the Runtime's name: a GardenerCluster is named by it, a kubeconfig Secret labelled with it. */
  private readonly byRuntimeId = new Map<string, string>();

  /** Follows a Runtime as it is now (`deleted`: gone). */
  update(runtime: RuntimeObject, deleted: boolean): void {
    const name = runtime.metadata.name;
    const runtimeId = runtime.metadata.labels?.[LABEL_RUNTIME_ID];
    if (runtimeId !== undefined) {
      if (deleted) this.byRuntimeId.delete(runtimeId);
      else this.byRuntimeId.set(runtimeId, name);
    }
    const before = this.shootOf.get(name);
    const after = deleted ? undefined : runtime.spec?.shoot?.name;
    if (before === after) return;
    if (before !== undefined) {
      const names = this.byShoot.get(before);
      names?.delete(name);
      if (names?.size === 0) this.byShoot.delete(before);
    }
    if (after === undefined) this.shootOf.delete(name);
    else {
      this.shootOf.set(name, after);
      this.byShoot.set(after, (this.byShoot.get(after) ?? new Set()).add(name));
    }
  }

  /** The names of the Runtimes whose `spec.shoot.name` is `shoot`. */
  namingShoot(shoot: string): Iterable<string> {
    return this.byShoot.get(shoot) ?? [];
  }

  /** The name of the Runtime labelled with `runtimeId`. */
  withRuntimeId(runtimeId: string): string | undefined {
    return this.byRuntimeId.get(runtimeId);
  }
}
