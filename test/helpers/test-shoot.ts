// A small hand-written Shoot for the tests of the semantic diff, change classes, PR bodies and the applier: two
// workers, a few extensions, every list kind the semantic diff keys. Tests change a structuredClone of it.
import { type Extension, SHOOT_API_VERSION, type Shoot, type Worker } from '../../model/shoot.js';

export function testShoot(): Shoot {
  return {
    apiVersion: SHOOT_API_VERSION,
    kind: 'Shoot',
    metadata: {
      name: 'c-1',
      namespace: 'garden-kyma-dev',
      labels: { 'kyma-project.io/region': 'eu-central-1' },
      annotations: { 'infrastructuremanager.kyma-project.io/runtime-generation': '3' },
    },
    spec: {
      region: 'eu-central-1',
      secretBindingName: 'aws-1',
      cloudProfile: { kind: 'CloudProfile', name: 'aws' },
      networking: { type: 'calico', nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.104.0.0/13' },
      kubernetes: { version: '1.32.5' },
      provider: {
        type: 'aws',
        workers: [
          {
            name: 'a',
            machine: { type: 'm6i.large', image: { name: 'gardenlinux', version: '1877.4.0' } },
            minimum: 1,
            maximum: 3,
            zones: ['z1', 'z2'],
          },
          {
            name: 'b',
            machine: { type: 'm6i.xlarge', image: { name: 'gardenlinux', version: '1877.4.0' } },
            minimum: 1,
            maximum: 5,
            zones: ['z1'],
          },
        ],
      },
      extensions: [
        { type: 'shoot-auditlog-service', providerConfig: { tenantID: 't-1' } },
        { type: 'shoot-dns-service' },
      ],
      resources: [{ name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 's-1' } }],
      tolerations: [{ key: 'ksa' }],
      dns: { domain: 'c-1.dev.example', providers: [{ type: 'aws-route53', primary: true }] },
    },
  };
}

/** The worker of that name; throws when the fixture has none, so a test cannot pass vacuously. */
/** A test Shoot with one edit applied. */
export function changed(edit: (shoot: Shoot) => void): Shoot {
  const shoot = testShoot();
  edit(shoot);
  return shoot;
}

export function worker(shoot: Shoot, name: string): Worker {
  const found = shoot.spec.provider.workers.find((w) => w.name === name);
  if (!found) throw new Error(`test Shoot has no worker ${name}`);
  return found;
}

export function extension(shoot: Shoot, type: string): Extension {
  const found = shoot.spec.extensions?.find((e) => e.type === type);
  if (!found) throw new Error(`test Shoot has no extension ${type}`);
  return found;
}
