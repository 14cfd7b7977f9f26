// Access to the running test control plane (scripts/testenv) from tests and their global setup.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient } from '../../adapters/kube/kube-client.js';

const TESTENV_SCRIPTS = new URL('../../scripts/testenv/', import.meta.url).pathname;

interface PlaneInfo {
  kubeApiserverUrl: string;
  kubeconfigs: Record<string, string>;
  startSeconds: number;
}

export interface Testenv {
  stateDir: string;
  /** The KCP cluster identity: Runtimes, GardenerClusters, kubeconfig Secrets. */
  kcp: KubeClient;
  /** The Garden identity: Shoots and everything Gardener. */
  garden: KubeClient;
  plane: PlaneInfo;
}

export function connect(stateDir: string): Testenv {
  return {
    stateDir,
    kcp: KubeClient.fromKubeconfigFile(join(stateDir, 'kcp.kubeconfig')),
    garden: KubeClient.fromKubeconfigFile(join(stateDir, 'garden.kubeconfig')),
    plane: JSON.parse(readFileSync(join(stateDir, 'plane.json'), 'utf8')) as PlaneInfo,
  };
}

/** The plane's kube-apiserver as a Shoot's own cluster (the gardenlet simulator's `runtimeCluster`, for `adminkubeconfig`). */
export function planeAsShootCluster(env: Testenv): {
  server: string;
  caCert: string;
  clientCACert: string;
  clientCAKey: string;
} {
  const pki = (file: string) => readFileSync(join(env.stateDir, 'pki', file), 'utf8');
  return {
    server: env.plane.kubeApiserverUrl,
    caCert: pki('ca.crt'),
    clientCACert: pki('shoot-client-ca.crt'),
    clientCAKey: pki('shoot-client-ca.key'),
  };
}

/** Runs scripts/testenv/<script> (up.sh, down.sh) with the given state dir, output passed through. */
export function runTestenvScript(script: string, stateDir: string): void {
  execFileSync('bash', [join(TESTENV_SCRIPTS, script)], {
    stdio: 'inherit',
    env: { ...process.env, KIMOPS_TESTENV_STATE: stateDir },
  });
}

/** Polls `check` until it returns a value (not undefined) or the timeout passes. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
