// Refreshes model/schemas/shoot-openapi-v1beta1.json from a running Garden: gardener-apiserver serves
// Shoot as an aggregated API (no CRD), so its schema is the API server's own OpenAPI v3 description.
// Run it when the test control plane's Gardener version moves (scripts/testenv/plane/go.mod):
//   KIMOPS_TESTENV=/tmp/kimops-shared npx tsx scripts/shoot-openapi-snapshot.ts [state dir]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { describeFailure } from '../model/kube-result.js';
import { SHOOT_OPENAPI_PATH, snapshotOf } from '../model/schemas/openapi-snapshot.js';

const SNAPSHOT_FILE = fileURLToPath(new URL('../model/schemas/shoot-openapi-v1beta1.json', import.meta.url));

async function main(): Promise<void> {
  const stateDir = process.argv[2] ?? process.env['KIMOPS_TESTENV'];
  if (!stateDir) {
    throw new Error(
      'name the test control plane: KIMOPS_TESTENV=<state dir> or the state dir as argument (start one with `npm run testenv:up`)',
    );
  }
  const garden = KubeClient.fromKubeconfigFile(join(stateDir, 'garden.kubeconfig'));
  const openapi = await garden.request<unknown>('GET', SHOOT_OPENAPI_PATH);
  if (!openapi.ok) throw new Error(`GET ${SHOOT_OPENAPI_PATH}: ${describeFailure(openapi)}`);
  const version = await garden.request<{ gitVersion?: string }>('GET', '/version');
  if (!version.ok) throw new Error(`GET /version: ${describeFailure(version)}`);
  const snapshot = snapshotOf(openapi.body, {
    source: `gardener-apiserver ${SHOOT_OPENAPI_PATH}`,
    kubernetesVersion: version.body.gitVersion ?? 'unknown',
  });
  const text = `${JSON.stringify(snapshot, null, 2)}\n`;
  writeFileSync(SNAPSHOT_FILE, text);
  console.log(
    `${SNAPSHOT_FILE}: Gardener ${snapshot.gardenerVersion}, kube-apiserver ${snapshot.kubernetesVersion}, ` +
      `${Object.keys(snapshot.components).length} components, ${text.length} bytes`,
  );
}

main().catch((error: unknown) => {
  console.error(`shoot-openapi-snapshot: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
