// Issue 18's end-to-end acceptance of KIM's dedicated audit log (docs/adr/0003-dedicated-audit-log-is-kept.md §3,
// docs/skr.md "Dedicated audit log"): the whole pipeline as KEB and KALM meet it, on the plane. The landscape's
// `features.dedicatedAuditLogging` is on; `generate`, `apply` and `backfill` run as the three watching loops of
// keb-lifecycle.ts, with the gardenlet simulator playing Gardener (the plane's kube-apiserver is the SKR). This
// test plays KALM: two free AuditLogs of the Runtime's region with their read Secrets in the Runtimes' namespace,
// their write Secrets in the Garden project, and the `Assigned` state once one is claimed. KEB creates a Runtime
// with `auditLogAccessEnabled` and, once it is Ready, deletes it.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_API_VERSION,
  AUDIT_LOG_KIND,
  LABEL_RESERVED_AT,
  LABEL_RESERVED_FOR_RUNTIME_ID,
  type AuditLog,
} from '../../model/audit-log.js';
import { LABEL_RUNTIME_ID } from '../../model/contract.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import type { Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { auditLogTenantOf, hasDedicatedAuditLogMark } from '../../rules/audit-log.js';
import { kimops, startKimops, type RunningKimops } from '../helpers/cli.js';
import { gitIn } from '../helpers/git-cli.js';
import { createTestNamespace, landscapeForProject } from '../helpers/projects.js';
import { exampleRuntime, getShoot } from '../helpers/shoots.js';
import { eventually } from '../helpers/testenv.js';
import { useKebPlane } from './keb-lifecycle.js';

const plane = useKebPlane('dedicated-audit-log-e2e');
const { env, project, dir, simulator } = plane;
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const AUDIT_LOG = { apiVersion: AUDIT_LOG_API_VERSION, kind: AUDIT_LOG_KIND } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const READ_COPY = { ...SECRET, namespace: 'kyma-system', name: 'auditlog-read-credentials' };
const DEDICATED_MARK = 'dedicated-auditlog-credentials';

type LiveRuntime = Runtime & { status?: RuntimeStatus };
type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };

/** KALM's AuditLog `name`, free for `region`, with its read Secret (KCP) and write Secret (Garden); its read data. */
async function kalmAuditLog(namespace: string, name: string, region: string): Promise<Record<string, string>> {
  const data = {
    clientid: Buffer.from(`reader-${name}`).toString('base64'),
    clientsecret: randomBytes(12).toString('base64'),
  };
  const read = await env.kcp.create({
    ...SECRET,
    metadata: { name: `${name}-read`, namespace },
    type: 'Opaque',
    data,
  } as KubeObject);
  if (!read.ok) throw new Error(`read Secret of ${name}: ${describeFailure(read)}`);
  const write = await env.garden.create({
    ...SECRET,
    metadata: { name: `${name}-write`, namespace: project.namespace },
    stringData: { clientId: `writer-${name}`, clientSecret: randomBytes(12).toString('hex') },
  } as KubeObject);
  if (!write.ok) throw new Error(`write Secret of ${name}: ${describeFailure(write)}`);
  const created = await env.kcp.create({
    ...AUDIT_LOG,
    metadata: { name, namespace },
    spec: {
      platformRegion: 'cf-eu10',
      regions: [region],
      subaccountID: `sub-${name}`,
      config: {
        serviceURL: `https://${name}.auditlog.example.invalid`,
        gardenerSecretName: `${name}-write`,
        readCredsSecretName: `${name}-read`,
      },
    },
  } as KubeObject);
  if (!created.ok) throw new Error(`AuditLog ${name}: ${describeFailure(created)}`);
  await kalmState(namespace, name, 'RegistrationReady');
  return data;
}

/** KALM's state of an AuditLog (its status is KALM's to write). */
async function kalmState(namespace: string, name: string, state: string): Promise<void> {
  const set = await env.kcp.patch({ ...AUDIT_LOG, namespace, name }, { status: { state } }, undefined, 'status');
  if (!set.ok) throw new Error(`AuditLog ${name} status: ${describeFailure(set)}`);
}

/** KIM's (and the generator's) name of an administrator's binding on the SKR. */
const bindingName = (user: string) => `admin-${createHash('sha256').update(user).digest('hex').slice(0, 10)}`;

describe('the dedicated audit log through generate, apply and backfill', () => {
  it("reserved at the create, the Shoot on the shared tenant; claimed once Configured, the customer's tenant through main to the Shoot; the read credentials on the SKR, then Ready; released on deletion", async () => {
    const file = await landscapeForProject(dir, 'landscape', 'stage', project);
    const shipped = readFileSync(file, 'utf8');
    const switched = shipped.replace(/^(\s+dedicatedAuditLogging:) false$/m, '$1 true');
    if (switched === shipped) throw new Error('landscapes/stage/landscape.yaml has no features.dedicatedAuditLogging');
    writeFileSync(file, switched);
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', file, gitdir])).code).toBe(0);
    const namespace = await createTestNamespace(env.kcp, 'kcp-dal-');

    // KEB's AWS example under names of its own: the plane is every test's SKR, so the administrator and the OIDC
    // client found there are this Runtime's.
    const shoot = `d${randomBytes(4).toString('hex')}`;
    const runtimeID = `rid-${shoot}`;
    const admin = `admin@${shoot}.example.com`;
    const clientID = `${shoot}-client`;
    const example = exampleRuntime('aws.yaml', shoot);
    example.metadata = {
      ...example.metadata,
      namespace,
      name: `rt-${shoot}`,
      labels: { ...example.metadata.labels, [LABEL_RUNTIME_ID]: runtimeID },
    };
    example.spec.auditLogAccessEnabled = true;
    example.spec.security.administrators = [admin];
    const oidc = example.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig?.[0];
    if (!oidc) throw new Error('the aws example has no additionalOidcConfig');
    oidc.clientID = clientID;
    const region = example.spec.shoot.region;
    const shared = project.settings.auditLogTenants.aws?.[region];
    if (!shared) throw new Error(`the stage landscape has no shared audit-log tenant for aws ${region}`);
    const ref = { ...RUNTIME, namespace, name: example.metadata.name };

    // KALM's pool: two free AuditLogs of the Runtime's region.
    const pool = ['al-1', 'al-2'];
    const readData = new Map<string, Record<string, string>>();
    for (const name of pool) readData.set(name, await kalmAuditLog(namespace, name, region));
    const auditLogs = async () => {
      const listed = await env.kcp.listAll<AuditLog>({ ...AUDIT_LOG, namespace });
      if (!listed.ok) throw new Error(`AuditLogs in ${namespace}: ${listed.message}`);
      return listed.items;
    };
    const runtime = async (): Promise<LiveRuntime | undefined> => {
      const got = await env.kcp.get(ref);
      if (!got.ok && got.status !== 404) throw new Error(describeFailure(got));
      return got.ok ? (got.body as unknown as LiveRuntime) : undefined;
    };
    const condition = (live: LiveRuntime | undefined, type: string) =>
      live?.status?.conditions?.find((c) => c.type === type);
    const mainShoot = (): Shoot | undefined => {
      try {
        return parseYaml11(gitIn(gitdir)('show', `main:shoots/${shoot}/shoot.yaml`), shoot) as Shoot;
      } catch {
        return undefined;
      }
    };
    const dedicatedResources = (s: Shoot | undefined) =>
      (s?.spec.resources ?? []).filter((r) => r.name === DEDICATED_MARK).map((r) => r.resourceRef.name);

    const created = await env.kcp.create({ ...example, ...RUNTIME } as unknown as KubeObject);
    expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
    const kcp = join(env.stateDir, 'kcp.kubeconfig');
    const garden = join(env.stateDir, 'garden.kubeconfig');
    const controller = new AbortController();
    const processes: RunningKimops[] = [
      [
        'generate',
        ...['--landscape', file, '--kcp-kubeconfig', kcp, '--kcp-namespace', namespace],
        ...['--garden-kubeconfig', garden, '--repo', gitdir, '--watch', '--interval', '2'],
      ],
      ['apply', '--landscape', file, '--repo', gitdir, '--garden-kubeconfig', garden, '--watch', '--interval', '1'],
      [
        'backfill',
        ...['--landscape', file, '--kcp-kubeconfig', kcp, '--garden-kubeconfig', garden],
        ...['--kcp-namespace', namespace, '--watch', '--interval', '3600', '--metrics-port', '0'],
      ],
    ].map((argv) => startKimops(argv, controller.signal));
    try {
      // The create: one AuditLog reserved with KIM's two labels, not claimed; the other untouched.
      const reserved = await eventually('an AuditLog reserved', async () => {
        const found = (await auditLogs()).filter((a) => a.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]);
        return found.length > 0 ? found : undefined;
      });
      expect(reserved).toHaveLength(1);
      const [auditLog] = reserved;
      const name = auditLog?.metadata.name ?? '';
      const other = pool.find((n) => n !== name) ?? '';
      expect(auditLog?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(runtimeID);
      expect(Number(auditLog?.metadata.labels?.[LABEL_RESERVED_AT])).toBeGreaterThan(1_700_000_000);
      expect(auditLog?.spec?.assignedToRuntimeID).toBeUndefined();

      // The Shoot is created on the landscape's shared tenant, without the mark.
      const live = await eventually('the Shoot created', () => getShoot(env.garden, project.namespace, shoot), 60_000);
      expect(auditLogTenantOf(live)).toEqual(shared);
      expect(hasDedicatedAuditLogMark(live)).toBe(false);

      // The claim, once the SKR is configured. Never Ready before it: each poll reads the Runtime first, so a
      // Ready Runtime next to an unclaimed AuditLog was Ready before the claim.
      const claimed = await eventually(
        'the AuditLog claimed',
        async () => {
          const before = await runtime();
          const found = (await auditLogs()).find((a) => a.metadata.name === name);
          if (found?.spec?.assignedToRuntimeID) return found;
          expect(before?.status?.state, 'Ready before the claim').not.toBe('Ready');
          return undefined;
        },
        90_000,
      );
      expect(claimed.spec?.assignedToRuntimeID).toBe(runtimeID);
      // KALM takes it over: Assigned (what KIM's release on deletion requires).
      await kalmState(namespace, name, 'Assigned');
      const tenant = {
        tenantID: `sub-${name}`,
        serviceURL: `https://${name}.auditlog.example.invalid`,
        secretName: `${name}-write`,
      };

      // The customer's tenant on main, with the mark, then in the live Shoot.
      const onMain = await eventually(
        "main's Shoot on the customer's tenant",
        async () => {
          const found = mainShoot();
          return found && auditLogTenantOf(found)?.tenantID === tenant.tenantID ? found : undefined;
        },
        60_000,
      );
      expect(auditLogTenantOf(onMain)).toEqual(tenant);
      expect(dedicatedResources(onMain)).toEqual([tenant.secretName]);
      const moved = await eventually(
        "the live Shoot on the customer's tenant",
        async () => {
          const found = await getShoot(env.garden, project.namespace, shoot);
          return found && auditLogTenantOf(found)?.tenantID === tenant.tenantID ? found : undefined;
        },
        60_000,
      );
      expect(auditLogTenantOf(moved)).toEqual(tenant);
      expect(hasDedicatedAuditLogMark(moved)).toBe(true);
      expect(dedicatedResources(moved)).toEqual([tenant.secretName]);

      // The read credentials on the SKR: the claimed AuditLog's data, KIM's label.
      const copy = await eventually(
        'the read credentials on the SKR',
        async () => {
          const got = await env.kcp.get<SecretObject>(READ_COPY);
          return got.ok && got.body.data?.clientid === readData.get(name)?.clientid ? got.body : undefined;
        },
        60_000,
      );
      expect(copy.data).toEqual(readData.get(name));
      expect(copy.type).toBe('Opaque');
      expect(copy.metadata.labels?.['operator.kyma-project.io/managed-by']).toBe('infrastructure-manager');

      // Ready, with KIM's two conditions, and not before the claim.
      const ready = await eventually(
        'Ready',
        async () => {
          const found = await runtime();
          return found?.status?.state === 'Ready' ? found : undefined;
        },
        60_000,
      );
      expect(ready.status?.provisioningCompleted).toBe(true);
      expect(condition(ready, 'CustomAuditLogConfigured')).toMatchObject({
        status: 'True',
        reason: 'CustomAuditLogConfigured',
        message: 'Custom AuditLog shoot configuration completed',
      });
      expect(condition(ready, 'AuditLogCredentialsCopied')).toMatchObject({
        status: 'True',
        reason: 'CredentialsCopied',
        message: 'Audit log read credentials copied to runtime',
      });
      const fields = (claimed.metadata.managedFields ?? []) as { fieldsV1?: unknown; time?: string }[];
      const claimedAt = fields
        .filter((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('f:assignedToRuntimeID'))
        .map((f) => Date.parse(String(f.time)));
      const readyAt = Date.parse(condition(ready, 'Ready')?.lastTransitionTime ?? '');
      expect(claimedAt).toHaveLength(1);
      // Whole seconds on both: "not before" within the same second.
      expect(
        readyAt >= (claimedAt[0] ?? Infinity)
          ? 'Ready after the claim'
          : `Ready at ${readyAt}, claimed at ${claimedAt[0]}`,
      ).toBe('Ready after the claim');
      const untouched = (await auditLogs()).find((a) => a.metadata.name === other);
      expect(untouched?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBeUndefined();
      expect(untouched?.spec?.assignedToRuntimeID).toBeUndefined();

      // KEB deletes the Runtime: its AuditLog is released (orphaned), then the Runtime is gone with its Shoot.
      expect((await env.kcp.delete(ref)).ok).toBe(true);
      await eventually(
        'the AuditLog orphaned',
        async () => ((await auditLogs()).find((a) => a.metadata.name === name)?.spec?.orphaned ? true : undefined),
        60_000,
      );
      await eventually('the Runtime gone', async () => ((await runtime()) ? undefined : true), 90_000);
      expect(await getShoot(env.garden, project.namespace, shoot)).toBeUndefined();
      expect((await auditLogs()).find((a) => a.metadata.name === other)?.spec?.orphaned).toBeUndefined();
    } catch (error) {
      // What the three loops said and where the Runtime stood are the first things to read when this fails.
      const tails = processes.map(
        (p, i) =>
          `--- ${['generate', 'apply', 'backfill'][i]} stdout:\n${p.stdout.slice(-4000)}\n--- stderr:\n${p.stderr.slice(-2000)}`,
      );
      const status = JSON.stringify((await runtime())?.status ?? null, null, 1);
      const found = JSON.stringify(
        (await auditLogs()).map((a) => ({
          name: a.metadata.name,
          labels: a.metadata.labels,
          spec: a.spec,
          status: a.status,
        })),
      );
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\n--- Runtime status:\n${status}\n--- pool:\n${found}\n${tails.join('\n')}`,
        { cause: error },
      );
    } finally {
      controller.abort();
      // The plane is every test's SKR: what this Runtime left there goes.
      await env.kcp.delete({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        name: bindingName(admin),
      });
      const oidcRef = {
        apiVersion: 'authentication.gardener.cloud/v1alpha1',
        kind: 'OpenIDConnect',
        name: 'kyma-oidc-0',
      };
      const skrOidc = await env.kcp.get<KubeObject & { spec?: { clientID?: string } }>(oidcRef);
      if (skrOidc.ok && skrOidc.body.spec?.clientID === clientID) await env.kcp.delete(oidcRef);
      const skrCopy = await env.kcp.get<SecretObject>(READ_COPY);
      if (skrCopy.ok && [...readData.values()].some((d) => d.clientid === skrCopy.body.data?.clientid))
        await env.kcp.delete(READ_COPY);
      for (const name of pool)
        await env.garden.delete({ ...SECRET, namespace: project.namespace, name: `${name}-write` });
    }
    const results = await Promise.all(processes.map((p) => p.done));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(simulator.problems).toEqual([]);
  }, 240_000);
});
