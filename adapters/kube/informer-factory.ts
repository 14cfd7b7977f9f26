// Informers without handing out a client: what the watching components' caches (applier/garden-caches.ts,
// backfiller/compacted-caches.ts) take, so they import no KubeClient and their tests need no cast.
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../model/kube-object.js';
import { Informer, type InformerOptions } from './informer.js';
import { KubeClient } from './kube-client.js';

/** Makes an informer of one kind on the client's cluster; it runs once started. */
export type StartInformer = <T extends KubeObject>(
  type: { apiVersion: string; kind: string },
  options: InformerOptions,
) => Informer<T>;

export function informersOn(client: KubeClient): StartInformer {
  return <T extends KubeObject>(type: { apiVersion: string; kind: string }, options: InformerOptions) =>
    new Informer<T>(client, type, options);
}

/**
 * A kubeconfig file as a long-running command holds it: its content read anew on every call (a rotated
 * credential changes it), and a connection made from it as it is now, closed when its informers are done.
 */
export function kubeconfigFile(
  path: string,
  option: string,
): { content(): string; connect(): { informer: StartInformer; close(): void } } {
  return {
    content: () => readFileSync(path, 'utf8'),
    connect: () => {
      const client = KubeClient.fromKubeconfigOption(path, option);
      return { informer: informersOn(client), close: () => client.close() };
    },
  };
}
