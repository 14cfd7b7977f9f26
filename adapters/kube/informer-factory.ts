// Informers without handing out a client: what the watching components' caches (applier/garden-caches.ts,
// backfiller/compacted-caches.ts) take, so they import no KubeClient and their tests need no cast.
import type { KubeObject } from '../../model/kube-object.js';
import { Informer, type InformerOptions } from './informer.js';
import { KubeClient } from './kube-client.js';
import { resolveCluster, type ClusterEnvironment, type ClusterOptions } from './kubeconfig-source.js';

/** Makes an informer of one kind on the client's cluster; it runs once started. */
export type StartInformer = <T extends KubeObject>(
  type: { apiVersion: string; kind: string },
  options: InformerOptions,
) => Informer<T>;

/**
 * Informers on `client`. A client made by KubeClient.forCluster keeps its credentials current, so each
 * watch an informer opens again (every 5–10 min, or after a failure) uses the rotated token.
 */
export function informersOn(client: KubeClient): StartInformer {
  return <T extends KubeObject>(type: { apiVersion: string; kind: string }, options: InformerOptions) =>
    new Informer<T>(client, type, options);
}

/** A cluster as a long-running command's caches hold it (applier/garden-caches.ts's GardenKubeconfig). */
export interface ClusterConnection {
  /**
   * What the credentials connect to, looked at anew on every call: a kubeconfig file's content (a replaced
   * file starts the caches over), or the in-cluster server and CA. A rotated ServiceAccount token is not in
   * it: the connection's client picks the new token up by itself, and an hourly relist would be waste.
   */
  content(): string;
  /** A connection with the credentials as they are now, closed when its informers are done. */
  connect(): { informer: StartInformer; close(): void };
}

/**
 * The cluster `options` name, resolved once as KubeClient.forCluster resolves it (a ConfigError now, not in
 * the loop), and connected anew on each connect(). For `apply --watch`'s Garden caches.
 */
export function clusterConnection(options: ClusterOptions, environment: ClusterEnvironment = {}): ClusterConnection {
  const source = resolveCluster(options, environment);
  return {
    content: () => {
      source.refresh();
      return source.identity();
    },
    connect: () => {
      const client = KubeClient.fromSource(source);
      return { informer: informersOn(client), close: () => client.close() };
    },
  };
}

/** A kubeconfig file named by `option`: clusterConnection with that file. */
export function kubeconfigFile(path: string, option: string): ClusterConnection {
  return clusterConnection({ kubeconfig: path, option });
}
