// The rules deploy/ must keep, read straight from its YAML (no kustomize, no cluster: the integration test
// test/integration/deploy.test.ts applies the built overlays to the real API). Every container hardened and
// sized, every identity without a default token, the status page's identity reading only, the overlays' landscape
// copies equal to the shipped ones.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { packagePath } from '../model/package-root.js';
import { kimops } from '../test/helpers/cli.js';

interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  automountServiceAccountToken?: boolean;
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: {
    selector?: Record<string, string>;
    ports?: { name?: string; port: number; targetPort?: string | number; protocol?: string }[];
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec: {
        serviceAccountName?: string;
        hostNetwork?: boolean;
        hostPID?: boolean;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type?: string } };
        containers: Container[];
        initContainers?: Container[];
        volumes?: { name: string; secret?: { secretName: string } }[];
      };
    };
  };
}

const DEPLOY = packagePath('deploy');

function readManifests(folder: string): Manifest[] {
  const kustomization = parse(readFileSync(join(DEPLOY, folder, 'kustomization.yaml'), 'utf8')) as {
    resources: string[];
  };
  return kustomization.resources
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DEPLOY, folder, file), 'utf8')).map((d) => d.toJSON() as Manifest),
    )
    .filter((manifest) => manifest !== null);
}

const base = readManifests('base');
const garden = readManifests('garden');
const deployments = base.filter((m) => m.kind === 'Deployment');
/** The watching loops: leader-elected, with --metrics-port. The status page is the other Deployment. */
const loops = deployments.filter((d) => d.metadata.name !== 'kimops-status');
const status = deployments.find((d) => d.metadata.name === 'kimops-status');
const mebibytes = (quantity: string | undefined) => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '');
  if (!match) throw new Error(`memory ${quantity} is not in Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};

describe('deploy/base', () => {
  it('passes each Deployment only flags its command has, and the image of this version', async () => {
    const version = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
    const images = (
      parse(readFileSync(join(DEPLOY, 'base', 'kustomization.yaml'), 'utf8')) as {
        images: { name: string; newTag: string }[];
      }
    ).images;
    expect(images).toEqual([expect.objectContaining({ name: 'kimops', newTag: version })]);
    for (const deployment of deployments) {
      const [command, ...args] = deployment.spec?.template?.spec.containers[0]?.args ?? [];
      const help = (await kimops([command ?? '', '--help'])).stdout;
      const flags = args.filter((arg) => arg.startsWith('--'));
      expect(flags.length).toBeGreaterThan(0);
      for (const flag of flags) expect(help, `${deployment.metadata.name}: ${flag}`).toContain(`${flag} `);
    }
  });

  it('has the three loops and the status page, each with its own ServiceAccount that mounts no token by default', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'kimops-applier',
      'kimops-backfiller',
      'kimops-generator',
      'kimops-status',
    ]);
    const accounts = base.filter((m) => m.kind === 'ServiceAccount');
    for (const deployment of deployments) {
      const account = deployment.spec?.template?.spec.serviceAccountName;
      expect(account).toBe(deployment.metadata.name);
      expect(accounts.find((a) => a.metadata.name === account)?.automountServiceAccountToken).toBe(false);
    }
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    '%s: non-root, seccomp RuntimeDefault, read-only, no capabilities, resources set',
    (_name, deployment) => {
      const pod = deployment.spec?.template?.spec;
      if (!pod) throw new Error('no pod template');
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.hostPID ?? false).toBe(false);
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const security = container.securityContext;
        expect(security?.runAsNonRoot, container.name).toBe(true);
        expect(security?.readOnlyRootFilesystem, container.name).toBe(true);
        expect(security?.allowPrivilegeEscalation, container.name).toBe(false);
        expect(security?.privileged ?? false, container.name).toBe(false);
        expect(security?.capabilities?.drop, container.name).toEqual(['ALL']);
        expect(security?.capabilities?.add ?? [], container.name).toEqual([]);
        const { requests, limits } = container.resources ?? {};
        expect(requests?.cpu, container.name).toBeDefined();
        // docs/performance.md's peaks at 10,000 objects are 354-565 MiB: the limit must be above them.
        expect(mebibytes(requests?.memory), container.name).toBeGreaterThanOrEqual(512);
        expect(mebibytes(limits?.memory), container.name).toBeGreaterThan(mebibytes(requests?.memory));
      }
    },
  );

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    '%s: JSON logs, its server and probes on port 8080, credentials from files',
    (name, deployment) => {
      const [container] = deployment.spec?.template?.spec.containers ?? [];
      const args = container?.args ?? [];
      const after = (flag: string) => args[args.indexOf(flag) + 1];
      expect(args).toContain('--watch');
      expect(after('--log-format')).toBe('json');
      expect(after('--garden-kubeconfig')).toBe('/etc/kimops/garden/kubeconfig');
      // The generator and the applier follow the landscape.yaml on main (one source: a merged change reaches them);
      // the backfiller, which reads no repo, and the status page get the ConfigMap's copy.
      if (name === 'kimops-backfiller' || name === 'kimops-status')
        expect(after('--landscape')).toBe('/etc/kimops/landscape/landscape.yaml');
      else expect(args).not.toContain('--landscape');
      expect(args).not.toContain('--kcp-kubeconfig');
      expect(container?.ports).toEqual([{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
      expect(container?.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    },
  );

  it.each(loops.map((d) => [d.metadata.name, d] as const))(
    '%s: leader election, metrics on 0.0.0.0:8080',
    (_name, deployment) => {
      const args = deployment.spec?.template?.spec.containers[0]?.args ?? [];
      const after = (flag: string) => args[args.indexOf(flag) + 1];
      expect(args).toContain('--leader-elect');
      expect(after('--metrics-port')).toBe('8080');
      expect(after('--metrics-host')).toBe('0.0.0.0');
    },
  );

  it('status: no Lease (it writes nothing, every replica serves), the page on 0.0.0.0:8080, the repo of the overlay', () => {
    const [container] = status?.spec?.template?.spec.containers ?? [];
    const args = container?.args ?? [];
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect(args[0]).toBe('status');
    expect(args).not.toContain('--leader-elect');
    expect(after('--port')).toBe('8080');
    expect(after('--host')).toBe('0.0.0.0');
    expect(after('--repo')).toBe('$(KIMOPS_REPO)');
    // Bound in kcp-system only: nothing in kimops-system, where the Leases are.
    const bindings = base.filter(
      (m) => m.kind === 'RoleBinding' && m.subjects?.some((s) => s.name === 'kimops-status'),
    );
    expect(bindings.map((binding) => binding.metadata.namespace)).toEqual(['kcp-system']);
    // Its own credentials: a Garden identity that reads only, and a read-only GitHub token, not the loops'.
    const secrets = status?.spec?.template?.spec.volumes?.flatMap((v) => v.secret?.secretName ?? []);
    expect(secrets?.sort()).toEqual(['kimops-status-garden', 'kimops-status-github']);
    const service = base.find((m) => m.kind === 'Service' && m.metadata.name === 'kimops-status');
    expect(service?.spec?.selector).toEqual(status?.spec?.template?.metadata?.labels);
    expect(service?.spec?.ports).toEqual([{ name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' }]);
  });

  it('grants each Lease Role get and update on its own Lease only', () => {
    const roles = base.filter((m) => m.kind === 'Role' && m.metadata.name.endsWith('-lease'));
    expect(roles.map((r) => r.rules?.[0]?.resourceNames)).toEqual([
      ['kimops-generate-LANDSCAPE'],
      ['kimops-apply-LANDSCAPE'],
      ['kimops-backfill-LANDSCAPE'],
    ]);
    for (const role of roles) {
      expect(role.metadata.namespace).toBe('kimops-system');
      expect(role.rules?.map((r) => r.verbs)).toEqual([['get', 'update'], ['create']]);
    }
  });

  it('keeps every RBAC rule to named resources and verbs (no wildcards) in namespaces it names', () => {
    const rbac = [...base, ...garden].filter((m) => m.kind === 'Role' || m.kind === 'ClusterRole');
    for (const role of rbac)
      for (const rule of role.rules ?? []) {
        expect([...rule.resources, ...rule.verbs, ...rule.apiGroups], role.metadata.name).not.toContain('*');
        expect(rule.verbs, role.metadata.name).not.toContain('escalate');
      }
    expect(base.filter((m) => m.kind === 'ClusterRole' || m.kind === 'ClusterRoleBinding')).toEqual([]);
  });

  it('lets the status identity get, list and watch, and nothing else, on the KCP and in the Garden', () => {
    const bindings = (manifests: Manifest[]) =>
      manifests.filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding');
    // Only ServiceAccounts are bound, each by name: no group (system:serviceaccounts...) passes a grant to it.
    for (const binding of bindings([...base, ...garden]))
      for (const subject of binding.subjects ?? []) expect(subject.kind, binding.metadata.name).toBe('ServiceAccount');
    const statusRules = (manifests: Manifest[]) =>
      bindings(manifests)
        .filter((binding) => binding.subjects?.some((subject) => subject.name === 'kimops-status'))
        .flatMap((binding) => {
          const role = manifests.find(
            (m) =>
              m.kind === binding.roleRef?.kind &&
              m.metadata.name === binding.roleRef.name &&
              m.metadata.namespace === binding.metadata.namespace,
          );
          if (!role) throw new Error(`${binding.metadata.name}: no ${binding.roleRef?.kind} ${binding.roleRef?.name}`);
          return role.rules ?? [];
        });
    const kcp = statusRules(base);
    const gardenRules = statusRules(garden);
    expect(kcp.flatMap((rule) => rule.resources).sort()).toEqual(['runtimes', 'secrets']);
    expect(gardenRules.flatMap((rule) => rule.resources).sort()).toEqual(['shoots']);
    for (const rule of [...kcp, ...gardenRules])
      for (const verb of rule.verbs) expect(['get', 'list', 'watch'], rule.resources.join()).toContain(verb);
  });
});

describe('deploy/overlays', () => {
  const overlays = readdirSync(join(DEPLOY, 'overlays'));

  it('are dev, stage and prod', () => {
    expect(overlays.sort()).toEqual(['dev', 'prod', 'stage']);
  });

  it.each(overlays)('%s: its landscape.yaml is landscapes/%s/landscape.yaml, its settings name it', (landscape) => {
    const copy = readFileSync(join(DEPLOY, 'overlays', landscape, 'landscape.yaml'), 'utf8');
    expect(copy).toBe(readFileSync(packagePath('landscapes', landscape, 'landscape.yaml'), 'utf8'));
    expect((parse(copy) as { name: string }).name).toBe(landscape);
    const kustomization = parse(readFileSync(join(DEPLOY, 'overlays', landscape, 'kustomization.yaml'), 'utf8')) as {
      configMapGenerator: { name: string; literals?: string[] }[];
      replicas: { name: string; count: number }[];
    };
    const settings = kustomization.configMapGenerator.find((g) => g.name === 'kimops-settings');
    expect(settings?.literals).toContain(`landscape=${landscape}`);
    expect(settings?.literals?.find((l) => l.startsWith('repo='))).toMatch(/^repo=https:\/\//);
    expect(kustomization.replicas).toEqual(
      deployments.map((deployment) => ({ name: deployment.metadata.name, count: 2 })),
    );
  });
});
