// The watching applier's view of the Garden: two informers (adapters/kube/informer.ts), the Shoots of
// garden-<project> and kimops's companion ConfigMaps, kept by WATCH after one LIST each. A sync then plans
// against them and lists nothing — Flux's and Argo CD's controllers work from such caches too — and the
// objects are compacted as they arrive (compactShoot, compactCompanion), so 10,000 of each stay small. A Shoot
// whose reconcile just ended with its cluster not yet configured from its tree (skr-plan.ts skrMayBeDue) asks for
// a sync at once: its SKR, and so its Runtime's Ready, need not wait for the next interval. A watching
// `kimops compare` keeps the Shoots alone (GardenCachesOptions).
import { createHash } from 'node:crypto';
import type { InformerOptions } from '../adapters/kube/informer.js';
import type { KubeObject } from '../model/kube-object.js';
import { COMPANION_SELECTOR, compactCompanion, compactShoot, type LiveObjects } from './sync-commit.js';
import { TransportError } from '../model/errors.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { skrMayBeDue } from './skr-plan.js';

/** How often a sync waiting for the caches' first lists looks whether they are failing. */
const POLL_MS = 100;

/** What the caches use of an informer. */
interface CachedList<T> {
  start(): void;
  stop(): Promise<void>;
  synced(): Promise<void>;
  items(): T[];
  /** Why its last LIST or WATCH failed, while it keeps retrying. */
  failing(): string | undefined;
  onChange(listener: (change: { type: string; object: T }) => void): () => void;
}

/** The Garden's kubeconfig (adapters/kube/informer-factory.ts's kubeconfigFile). */
export interface GardenKubeconfig {
  /** The file's content now: a change (a rotated credential) makes the caches anew. */
  content(): string;
  /** A connection made from the file as it is now. */
  connect(): {
    informer(type: { apiVersion: string; kind: string }, options: InformerOptions): CachedList<KubeObject>;
    close(): void;
  };
}

/** Both caches' first full lists; a TransportError with the failure either of them is retrying after. */
async function firstLists(...informers: CachedList<KubeObject>[]): Promise<void> {
  let synced = false;
  const lists = Promise.all(informers.map((informer) => informer.synced())).then(() => (synced = true));
  for (;;) {
    const failing = informers.map((informer) => informer.failing()).find((message) => message !== undefined);
    if (!synced && failing !== undefined) throw new TransportError('Garden', failing);
    await Promise.race([lists, new Promise((resolve) => setTimeout(resolve, POLL_MS).unref())]);
    if (synced) return;
  }
}

interface Started {
  /** What the caches were made for: the kubeconfig file's content, the namespace, the field manager compactShoot keeps. */
  key: string;
  close: () => void;
  shoots: CachedList<KubeObject>;
  /** Absent when the companions are not kept (GardenCachesOptions). */
  companions?: CachedList<KubeObject>;
}

export interface GardenCachesOptions {
  /**
   * Keep the companion ConfigMaps too (default true: a sync applies them). `kimops compare` reads only Shoots: without
   * them it needs no right to list or watch ConfigMaps, so a read-only Shoot identity suffices.
   */
  companions?: boolean;
}

export class GardenCaches {
  private started: Started | undefined;

  constructor(
    private readonly kubeconfig: GardenKubeconfig,
    private readonly log: (line: string) => void,
    /** Called when a Shoot's SKR may have become due (a sync then configures it). */
    private readonly skrDue: () => void = () => {},
    private readonly options: GardenCachesOptions = {},
  ) {}

  /**
   * The live objects of `namespace`, once both caches hold a first full list (without companions: none, and only
   * the Shoots' list is waited for). They are made on first use and
   * made again when the kubeconfig file (a rotated credential), the namespace or kimops.yaml's field manager
   * changed. While their first lists fail, this fails with the reason (a TransportError, so the watch backs off
   * and reports it); the informers keep trying meanwhile.
   */
  async live(namespace: string, fieldManager: string): Promise<LiveObjects> {
    const key = createHash('sha256')
      .update(JSON.stringify([this.kubeconfig.content(), namespace, fieldManager]))
      .digest('hex');
    if (this.started?.key !== key) {
      await this.stop();
      this.started = this.start(key, namespace, fieldManager);
    }
    const { shoots, companions } = this.started;
    await firstLists(shoots, ...(companions ? [companions] : []));
    return {
      shoots: () => shoots.items() as unknown as Shoot[],
      companions: () => companions?.items() ?? [],
      failing: () => shoots.failing() ?? companions?.failing(),
    };
  }

  /** Ends both watches and their connections; a sync waiting for a first list then fails. */
  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    if (!started) return;
    await Promise.all([started.shoots.stop(), started.companions?.stop()]);
    started.close();
  }

  private start(key: string, namespace: string, fieldManager: string): Started {
    const connection = this.kubeconfig.connect();
    const shoots = connection.informer(
      { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' },
      {
        namespace,
        log: this.log,
        transform: (item) => compactShoot(item, fieldManager),
      },
    );
    const companions =
      this.options.companions === false
        ? undefined
        : connection.informer(
            { apiVersion: 'v1', kind: 'ConfigMap' },
            {
              namespace,
              labelSelector: COMPANION_SELECTOR,
              log: this.log,
              transform: (item) => compactCompanion(item, fieldManager),
            },
          );
    // Once per Shoot that becomes so, not on every status write of one that stays so (an SKR that keeps failing).
    const mayBeDue = new Set<string>();
    shoots.onChange(({ type, object }) => {
      const due = type !== 'deleted' && skrMayBeDue(object as unknown as Shoot);
      if (due && !mayBeDue.has(object.metadata.name)) this.skrDue();
      if (due) mayBeDue.add(object.metadata.name);
      else mayBeDue.delete(object.metadata.name);
    });
    shoots.start();
    companions?.start();
    return { key, close: () => connection.close(), shoots, ...(companions && { companions }) };
  }
}
