// Objects of one kind in one namespace, as a generator pass needs them: a one-shot list (`--once`),
// or an informer's cache that stays current and says when something changed (`--watch`). Either is a
// complete list or none (every page read): the generator takes a Runtime absent from it as gone.
import { TransportError } from '../../model/errors.js';
import { DEFAULT_PAGE_SIZE, Informer, type ChangeListener } from './informer.js';
import type { KubeClient } from './kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';

export interface ObjectSource<T> {
  /** The objects now: a fresh list, or the informer's cache once it has listed. */
  items(): Promise<T[]>;
  /** Watch mode only: called for every change the informer sees. */
  onChange(listener: ChangeListener<T>): void;
  stop(): Promise<void>;
}

export interface ObjectSourceOptions {
  namespace: string;
  watch: boolean;
  /** Informer troubles (watch mode): one line each, naming the kubeconfig and the fix. */
  log: (line: string) => void;
}

export function objectSource<T extends KubeObject>(
  client: KubeClient,
  type: { apiVersion: string; kind: string },
  options: ObjectSourceOptions,
): ObjectSource<T> {
  if (!options.watch) {
    return {
      async items() {
        // Paged as the informer pages: each page, not the whole namespace, must arrive within the request deadline.
        const listed = await client.listAll<T>({ ...type, namespace: options.namespace }, { limit: DEFAULT_PAGE_SIZE });
        if (!listed.ok) throw new TransportError(`kubeconfig ${client.label}`, listed.message);
        return listed.items;
      },
      onChange: () => undefined,
      stop: async () => undefined,
    };
  }
  const informer = new Informer<T>(client, type, { namespace: options.namespace, log: options.log });
  informer.start();
  return {
    async items() {
      await informer.synced();
      return informer.items();
    },
    onChange: (listener) => void informer.onChange(listener),
    stop: () => informer.stop(),
  };
}
