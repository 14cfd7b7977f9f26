import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_LICENCE_TYPE,
  ANNOTATION_RUNTIME_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_INSTANCE_ID,
  LABEL_KYMA_NAME,
  LABEL_PLATFORM_REGION,
  PROVISIONER_RUNTIME_ID_ANNOTATION,
  SEED_REGION_LABEL,
} from '../model/contract.js';
import type { Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import { runtimeFromShoot, type ImportSources } from './runtime-from-shoot.js';

const settings = landscapeSettings('dev');

/** KEB's Runtime, the Shoot and ConfigMap KIM (kimops's converter) made of it, and its GardenerCluster's labels. */
function madeFrom(
  file: string,
  edit: (runtime: Runtime) => void = () => {},
): { runtime: Runtime; sources: ImportSources } {
  const runtime = exampleRuntime(file);
  edit(runtime);
  const { shoot, companions } = render(runtime, settings);
  const labels = runtime.metadata.labels ?? {};
  return {
    runtime,
    sources: {
      shoot,
      structuredAuth: companions[0],
      gardenerClusterLabels: { ...labels, [LABEL_PLATFORM_REGION]: runtime.spec.shoot.platformRegion },
      settings,
    },
  };
}

function imported(sources: ImportSources) {
  const result = runtimeFromShoot(sources);
  if (!result.ok) throw new Error(result.reason);
  return result;
}

describe('runtimeFromShoot', () => {
  it("gives KEB's Runtime back from the Shoot and the GardenerCluster, but for what only the SKR knows", () => {
    const { runtime, sources } = madeFrom('azure.yaml');
    const { runtime: back, unknown } = imported(sources);
    expect(back.metadata).toEqual({
      name: runtime.metadata.name,
      namespace: 'kcp-system',
      labels: runtime.metadata.labels,
    });
    const { administrators, ...security } = runtime.spec.security;
    expect(administrators.length).toBeGreaterThan(0);
    expect(back.spec.security).toEqual(security);
    const { additionalOidcConfig, ...apiServer } = runtime.spec.shoot.kubernetes?.kubeAPIServer ?? {};
    expect(additionalOidcConfig).toBeDefined();
    expect(back.spec.shoot.kubernetes?.kubeAPIServer).toEqual(
      Object.keys(apiServer).length > 0 ? apiServer : undefined,
    );
    expect(back.spec.shoot.provider.workers.map((w) => w.name)).toEqual(['cpu-worker-0']);
    const [worker] = back.spec.shoot.provider.workers;
    expect(worker).toEqual(runtime.spec.shoot.provider.workers[0]);
    expect(back.spec.shoot).toMatchObject({
      name: runtime.spec.shoot.name,
      purpose: runtime.spec.shoot.purpose,
      region: runtime.spec.shoot.region,
      platformRegion: runtime.spec.shoot.platformRegion,
      secretBindingName: runtime.spec.shoot.secretBindingName,
      networking: runtime.spec.shoot.networking,
      controlPlane: runtime.spec.shoot.controlPlane,
      enforceSeedLocation: false,
      enableNvidiaOpenshell: false,
    });
    expect(unknown.map((u) => u.field)).toEqual([
      'spec.security.administrators',
      'spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig',
    ]);
  });

  it("gives KEB's whole Runtime back with what the SKR tells", () => {
    const { runtime, sources } = madeFrom('azure.yaml');
    const skr = {
      administrators: runtime.spec.security.administrators,
      additionalOidcConfig: runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig ?? [],
    };
    const { runtime: back, unknown } = imported({ ...sources, skr });
    expect(unknown).toEqual([]);
    expect(back).toEqual({ ...runtime, metadata: { ...runtime.metadata, namespace: 'kcp-system' } });
  });

  it('says why the SKR could not tell, when it could not be read', () => {
    const { sources } = madeFrom('azure.yaml');
    const { unknown } = imported({ ...sources, skr: { unreadable: 'request adminkubeconfig: 403' } });
    expect(unknown.find((u) => u.field === 'spec.security.administrators')?.fix).toContain(
      '(the SKR: request adminkubeconfig: 403)',
    );
  });

  it('reads the Provisioner’s annotations on a Shoot KIM never touched', () => {
    const { sources } = madeFrom('aws.yaml');
    const shoot = structuredClone(sources.shoot);
    const id = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID] ?? '';
    shoot.metadata.annotations = {
      [PROVISIONER_RUNTIME_ID_ANNOTATION]: id,
      'kcp.provisioner.kyma-project.io/licence-type': 'SAPDEV',
    };
    const { runtime } = imported({ ...sources, shoot });
    expect(runtime.metadata.name).toBe(id);
    expect(runtime.spec.shoot.licenceType).toBe('SAPDEV');
  });

  it('refuses a Runtime ID that is no Kubernetes object name: it names the Runtime and its file', () => {
    const { sources } = madeFrom('aws.yaml');
    const shoot = structuredClone(sources.shoot);
    shoot.metadata.annotations = { ...shoot.metadata.annotations, [ANNOTATION_RUNTIME_ID]: '../../etc/x' };
    const result = runtimeFromShoot({ ...sources, shoot });
    expect(result.ok ? 'imported' : result.reason).toBe(
      "metadata.annotations: the Runtime ID \"../../etc/x\" is no Kubernetes object name (KEB's are UUIDs); correct the Shoot's annotation to its Runtime's ID from KEB",
    );
  });

  it('reads a seed selector with only matchExpressions as no enforced seed location', () => {
    const { sources } = madeFrom('aws.yaml');
    const shoot = structuredClone(sources.shoot);
    shoot.spec.seedSelector = {
      matchExpressions: [{ key: SEED_REGION_LABEL, operator: 'In', values: [shoot.spec.region] }],
    };
    expect(imported({ ...sources, shoot }).runtime.spec.shoot.enforceSeedLocation).toBe(false);
  });

  it('lists what only KEB knows when there is no GardenerCluster, and leaves the required platform region out', () => {
    const { sources } = madeFrom('gcp.yaml');
    const { runtime, unknown } = imported({ ...sources, gardenerClusterLabels: undefined });
    expect(runtime.spec.shoot.platformRegion).toBeUndefined();
    expect(runtime.metadata.labels?.[LABEL_INSTANCE_ID]).toBeUndefined();
    const fields = unknown.map((u) => u.field);
    for (const label of [LABEL_INSTANCE_ID, LABEL_BROKER_PLAN_NAME, LABEL_KYMA_NAME])
      expect(fields).toContain(`metadata.labels["${label}"]`);
    expect(fields).toContain('spec.shoot.platformRegion');
    expect(unknown.find((u) => u.field === 'spec.shoot.platformRegion')?.fix).toMatch(/kubectl apply refuses/);
    // What the Shoot itself says stays known.
    expect(fields).not.toContain('metadata.labels["kyma-project.io/global-account-id"]');
  });

  it("pins the Shoot's Kubernetes version only when the landscape's default would upgrade it", () => {
    const { sources } = madeFrom('aws.yaml');
    const older = structuredClone(sources.shoot);
    older.spec.kubernetes.version = '1.20.1';
    const pinned = imported({ ...sources, shoot: older });
    expect(pinned.runtime.spec.shoot.kubernetes?.version).toBe('1.20.1');
    expect(pinned.notes.join('\n')).toMatch(/would upgrade it/);
    expect(imported(sources).runtime.spec.shoot.kubernetes?.version).toBeUndefined();
  });

  it("takes a customer's OIDC, the ACL without the operators' CIDRs, the filters and the licence from the Shoot", () => {
    const { runtime, sources } = madeFrom('aws.yaml', (r) => {
      r.spec.shoot.licenceType = 'CUSTOMER';
      r.spec.shoot.kubernetes = {
        kubeAPIServer: {
          oidcConfig: {
            clientID: 'c1',
            issuerURL: 'https://idp.example.com',
            usernameClaim: 'email',
            groupsClaim: 'grp',
            groupsPrefix: '-',
          },
        },
      };
      r.spec.security.networking.filter = { egress: { enabled: true }, ingress: { enabled: true } };
    });
    const acl = { ...settings, acl: { operatorCIDRs: ['1.1.1.0/24'], kcpIP: '2.2.2.2/32' } };
    const shoot: Shoot = structuredClone(sources.shoot);
    shoot.spec.extensions?.push({
      type: 'acl',
      providerConfig: {
        rule: { action: 'ALLOW', cidrs: ['10.0.0.0/8', '1.1.1.0/24', '2.2.2.2/32'], type: 'remote_ip' },
      },
    });
    const { runtime: back } = imported({ ...sources, shoot, settings: acl });
    expect(shoot.metadata.annotations?.[ANNOTATION_LICENCE_TYPE]).toBe('CUSTOMER');
    expect(back.spec.shoot.licenceType).toBe('CUSTOMER');
    expect(back.spec.shoot.kubernetes?.kubeAPIServer).toEqual({
      oidcConfig: {
        clientID: 'c1',
        issuerURL: 'https://idp.example.com',
        usernameClaim: 'email',
        groupsClaim: 'grp',
        groupsPrefix: '-',
      },
      acl: { allowedCIDRs: ['10.0.0.0/8'] },
    });
    expect(back.spec.security.networking).toEqual(runtime.spec.security.networking);
  });

  it('names the Kyma worker pool and keeps the others as additional workers, with what differs from the defaults', () => {
    const { sources } = madeFrom('aws.yaml', (r) => {
      const [kyma] = r.spec.shoot.provider.workers;
      if (!kyma) throw new Error('the example has no worker');
      r.spec.shoot.provider.additionalWorkers = [
        {
          ...structuredClone(kyma),
          name: 'extra',
          machine: { type: 'm5.large', image: { name: 'ubuntu', version: '22.4' } },
          machineControllerManager: { machineDrainTimeout: '1h' },
        },
      ];
    });
    // Gardener defaults the architecture; KEB leaves it to Gardener unless it is another one.
    const shoot = structuredClone(sources.shoot);
    for (const w of shoot.spec.provider.workers) w.machine.architecture = w.name === 'extra' ? 'arm64' : 'amd64';
    const { runtime } = imported({ ...sources, shoot });
    expect(runtime.spec.shoot.provider.workers[0]?.machine.architecture).toBeUndefined();
    expect(runtime.spec.shoot.provider.additionalWorkers?.[0]?.machine.architecture).toBe('arm64');
    expect(runtime.spec.shoot.provider.workers.map((w) => w.name)).toEqual(['cpu-worker-0']);
    const [extra] = runtime.spec.shoot.provider.additionalWorkers ?? [];
    expect(extra?.machine.image).toEqual({ name: 'ubuntu', version: '22.4' });
    expect(extra?.machineControllerManager).toMatchObject({ machineDrainTimeout: '1h0m0s' });
    expect(runtime.spec.shoot.provider.workers[0]?.machineControllerManager).toBeUndefined();
  });

  it('refuses a Shoot whose structured-authentication ConfigMap is no YAML, naming it', () => {
    const { sources } = madeFrom('aws.yaml');
    const broken = structuredClone(sources.structuredAuth);
    if (!broken) throw new Error('no ConfigMap rendered');
    broken.data = { 'config.yaml': 'jwt: [' };
    const result = runtimeFromShoot({ ...sources, structuredAuth: broken });
    expect(result).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^ConfigMap structured-auth-config-.*structured-authentication ConfigMap$/,
      ) as string,
    });
  });

  it('refuses a Shoot that names no Runtime ID, saying how to fix it', () => {
    const { sources } = madeFrom('aws.yaml');
    const shoot = structuredClone(sources.shoot);
    shoot.metadata.annotations = {};
    const result = runtimeFromShoot({ ...sources, shoot });
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/names no Runtime ID.*annotate it/) as string });
  });
});
