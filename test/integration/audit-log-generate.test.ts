// Issue 18, the generator's side of the dedicated audit log, on the plane's KCP (kube-apiserver with KALM's
// AuditLog CRD, scripts/testenv/fixtures/kcp/): with the landscape's features.dedicatedAuditLogging on, `kimops
// generate` reserves an AuditLog when it proposes a Runtime's create (which stays on the shared tenant), claims it
// once the Runtime is provisioned and proposes its tenant with the dedicated mark, keeps it when the Runtime turns
// the access off, releases it when the Runtime is deleted, claims directly for an existing Shoot, and holds a
// Runtime the pool has nothing for, with KIM's message on the Runtime for the backfiller. Each test has its own KCP
// namespace: the generator reads the pool where it reads the Runtimes.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
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
import { readPipelineAnnotation } from '../../model/pipeline-facts.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { kcpAuditLogPool } from '../../adapters/kube/kcp-audit-logs.js';
import { settleAuditLogs } from '../../generator/audit-log-pass.js';
import { auditLogTenantOf, hasDedicatedAuditLogMark } from '../../rules/audit-log.js';
import { kimops } from '../helpers/cli.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('audit-log-generate');
const AUDIT_LOG = { apiVersion: AUDIT_LOG_API_VERSION, kind: AUDIT_LOG_KIND } as const;
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
/** Holds a deleted Runtime, as KIM's finalizer does, so the generator sees its deletionTimestamp. */
const HOLD = 'kimops.kyma-project.io/test-hold';
const held: { namespace: string; name: string }[] = [];
afterEach(async () => {
  for (const ref of held.splice(0)) await env.kcp.patch({ ...RUNTIME, ...ref }, { metadata: { finalizers: null } });
});

/** The stage landscape with the switch on, a landscape repo and a KCP namespace for the Runtimes and the pool. */
async function setup(name: string) {
  const path = await landscapeForProject(dir, name, 'stage', project);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain('dedicatedAuditLogging: false');
  writeFileSync(path, text.replace('dedicatedAuditLogging: false', 'dedicatedAuditLogging: true'));
  const gitdir = join(dir.path, `${name}.git`);
  expect((await kimops(['init', '--landscape', path, gitdir])).code).toBe(0);
  const namespace = await createTestNamespace(env.kcp, 'kcp-alg-');
  const kcpKubeconfig = join(env.stateDir, 'kcp.kubeconfig');
  const args = ['generate', '--landscape', path, '--kcp-kubeconfig', kcpKubeconfig, '--kcp-namespace', namespace];
  const generate = () => kimops([...args, '--repo', gitdir, '--once']);
  return { gitdir, namespace, generate };
}

/** KALM's AuditLog in `state`, serving `regions`; its tenant is `sub-<name>`, its write Secret `write-<name>`. */
async function auditLog(namespace: string, name: string, regions: string[], state: string): Promise<void> {
  const created = await env.kcp.create({
    ...AUDIT_LOG,
    metadata: { name, namespace },
    spec: {
      platformRegion: 'cf-eu11',
      regions,
      subaccountID: `sub-${name}`,
      config: { serviceURL: `https://${name}.auditlog.example.invalid`, gardenerSecretName: `write-${name}` },
    },
  } as KubeObject);
  if (!created.ok) throw new Error(`AuditLog ${name}: ${describeFailure(created)}`);
  await setState(namespace, name, state);
}

/** What KALM does: the state is its to write. */
async function setState(namespace: string, name: string, state: string): Promise<void> {
  const set = await env.kcp.patch({ ...AUDIT_LOG, namespace, name }, { status: { state } }, undefined, 'status');
  if (!set.ok) throw new Error(`AuditLog ${name} status: ${describeFailure(set)}`);
}

async function readAuditLog(namespace: string, name: string): Promise<AuditLog> {
  const read = await env.kcp.get<AuditLog>({ ...AUDIT_LOG, namespace, name });
  if (!read.ok) throw new Error(`AuditLog ${name}: ${describeFailure(read)}`);
  return read.body;
}

/** KEB's AWS example (eu-central-1) in `namespace` under a fresh Shoot name and Runtime ID, held by a finalizer. */
async function createRuntime(namespace: string, access: boolean) {
  const shoot = `a${randomBytes(4).toString('hex')}`;
  const runtime = exampleRuntime('aws.yaml', shoot);
  const runtimeID = `rid-${shoot}`;
  runtime.metadata = {
    ...runtime.metadata,
    namespace,
    name: `rt-${shoot}`,
    labels: { ...runtime.metadata.labels, [LABEL_RUNTIME_ID]: runtimeID },
    finalizers: [HOLD],
  };
  runtime.spec.auditLogAccessEnabled = access;
  const created = await env.kcp.create({ ...runtime, ...RUNTIME } as unknown as KubeObject);
  if (!created.ok) throw new Error(`Runtime ${shoot}: ${describeFailure(created)}`);
  const ref = { ...RUNTIME, namespace, name: `rt-${shoot}` };
  held.push({ namespace, name: ref.name });
  return { shoot, runtimeID, ref, region: runtime.spec.shoot.region };
}

async function readRuntime(ref: { namespace: string; name: string }): Promise<Runtime> {
  const read = await env.kcp.get<KubeObject & Runtime>({ ...RUNTIME, ...ref });
  if (!read.ok) throw new Error(`Runtime ${ref.name}: ${describeFailure(read)}`);
  return read.body;
}

/** The backfiller's mark of KIM's last SKR step: the administrators' bindings are configured. */
async function provisioned(ref: { namespace: string; name: string }): Promise<void> {
  const condition = {
    type: 'Configured',
    status: 'True',
    reason: 'AdministratorsConfigured',
    message: 'Cluster admin configuration completed',
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  const set = await env.kcp.patch(
    { ...RUNTIME, ...ref },
    { status: { state: 'Pending', conditions: [condition] } },
    undefined,
    'status',
  );
  if (!set.ok) throw new Error(`Runtime ${ref.name} status: ${describeFailure(set)}`);
}

const onMain = (gitdir: string, shoot: string): Shoot | undefined => {
  try {
    const text = execFileSync('git', ['--git-dir', gitdir, 'show', `main:shoots/${shoot}/shoot.yaml`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return parseYaml11(text, shoot) as Shoot;
  } catch {
    return undefined;
  }
};
const mainShoot = (gitdir: string, shoot: string): Shoot => {
  const found = onMain(gitdir, shoot);
  if (!found) throw new Error(`main holds no Shoot ${shoot}`);
  return found;
};
const auditLogResources = (shoot: Shoot) =>
  (shoot.spec.resources ?? []).filter((r) => r.name.includes('auditlog')).map((r) => [r.name, r.resourceRef.name]);

describe('kimops generate with features.dedicatedAuditLogging', () => {
  it('reserves at the create, claims once provisioned (tenant + mark on main), keeps it when the access is turned off, releases it on deletion', async () => {
    const { gitdir, namespace, generate } = await setup('lifecycle');
    // "al-0" sorts first but KALM has not registered it yet; "al-x" serves another region.
    await auditLog(namespace, 'al-0', ['eu-central-1'], 'Pending');
    await auditLog(namespace, 'al-a', ['eu-central-1'], 'SiemApproved');
    await auditLog(namespace, 'al-x', ['us-east-1'], 'SiemApproved');
    const { shoot, runtimeID, ref, region } = await createRuntime(namespace, true);
    expect(region).toBe('eu-central-1');

    const created = await generate();
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const reserved = await readAuditLog(namespace, 'al-a');
    expect(reserved.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(runtimeID);
    expect(Number(reserved.metadata.labels?.[LABEL_RESERVED_AT])).toBeGreaterThan(1_700_000_000);
    expect(reserved.spec?.assignedToRuntimeID).toBeUndefined();
    expect((await readAuditLog(namespace, 'al-0')).metadata.labels).toBeUndefined();
    // The create stays on the landscape's shared tenant, without the mark.
    const shared = mainShoot(gitdir, shoot);
    expect(auditLogTenantOf(shared)?.tenantID).not.toBe('sub-al-a');
    expect(hasDedicatedAuditLogMark(shared)).toBe(false);

    // Not yet provisioned: a second pass writes nothing to the pool.
    expect((await generate()).code).toBe(0);
    expect((await readAuditLog(namespace, 'al-a')).metadata.resourceVersion).toBe(reserved.metadata.resourceVersion);

    await provisioned(ref);
    const claimed = await generate();
    expect(claimed.stderr).toBe('');
    expect(claimed.code).toBe(0);
    expect((await readAuditLog(namespace, 'al-a')).spec?.assignedToRuntimeID).toBe(runtimeID);
    // The Runtime's own change, merged like an update: the CR's tenant in KIM's patch shape, plus the mark.
    const dedicated = mainShoot(gitdir, shoot);
    expect(auditLogTenantOf(dedicated)).toEqual({
      tenantID: 'sub-al-a',
      serviceURL: 'https://al-a.auditlog.example.invalid',
      secretName: 'write-al-a',
    });
    expect(auditLogResources(dedicated)).toEqual([
      ['auditlog-credentials', 'write-al-a'],
      ['dedicated-auditlog-credentials', 'write-al-a'],
    ]);
    expect(readPipelineAnnotation((await readRuntime(ref)).metadata.annotations).proposal?.state).toBe('merged');
    await setState(namespace, 'al-a', 'Assigned');

    // Irreversible: the Runtime turning the access off keeps the claimed tenant.
    const off = await env.kcp.patch({ ...RUNTIME, ...ref }, { spec: { auditLogAccessEnabled: false } });
    expect(off.ok ? 'patched' : describeFailure(off)).toBe('patched');
    expect((await generate()).code).toBe(0);
    expect(auditLogTenantOf(mainShoot(gitdir, shoot))?.tenantID).toBe('sub-al-a');

    // KEB deletes the Runtime: its AuditLog is marked orphaned (KALM keeps the logs for their retention).
    const deleted = await env.kcp.delete(ref);
    expect(deleted.ok ? 'deleting' : describeFailure(deleted)).toBe('deleting');
    expect((await generate()).code).toBe(0);
    expect((await readAuditLog(namespace, 'al-a')).spec?.orphaned).toBe(true);
    expect((await readAuditLog(namespace, 'al-x')).spec?.orphaned).toBeUndefined();
  });

  it('claims directly for an existing Shoot whose Runtime turns the access on, as its own change', async () => {
    const { gitdir, namespace, generate } = await setup('direct');
    await auditLog(namespace, 'al-b', ['eu-central-1'], 'RegistrationReady');
    const { shoot, runtimeID, ref } = await createRuntime(namespace, false);
    expect((await generate()).code).toBe(0);
    expect((await readAuditLog(namespace, 'al-b')).metadata.labels).toBeUndefined();
    expect(hasDedicatedAuditLogMark(mainShoot(gitdir, shoot))).toBe(false);

    const on = await env.kcp.patch({ ...RUNTIME, ...ref }, { spec: { auditLogAccessEnabled: true } });
    expect(on.ok ? 'patched' : describeFailure(on)).toBe('patched');
    const result = await generate();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const claimed = await readAuditLog(namespace, 'al-b');
    expect(claimed.spec?.assignedToRuntimeID).toBe(runtimeID);
    expect(claimed.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(runtimeID);
    expect(auditLogTenantOf(mainShoot(gitdir, shoot))?.tenantID).toBe('sub-al-b');
    expect(auditLogResources(mainShoot(gitdir, shoot))).toContainEqual([
      'dedicated-auditlog-credentials',
      'write-al-b',
    ]);
  });

  it("holds a Runtime the pool has nothing for: no Shoot proposed, KIM's message on the Runtime for the backfiller", async () => {
    const { gitdir, namespace, generate } = await setup('empty');
    await auditLog(namespace, 'al-us', ['us-east-1'], 'SiemApproved');
    const { shoot, ref } = await createRuntime(namespace, true);
    const result = await generate();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 held without a dedicated audit log');
    expect(onMain(gitdir, shoot)).toBeUndefined();
    expect((await readAuditLog(namespace, 'al-us')).metadata.labels).toBeUndefined();
    expect(readPipelineAnnotation((await readRuntime(ref)).metadata.annotations)).toEqual({
      generation: 1,
      auditLogError: { step: 'reserve', message: 'no available AuditLogCR in the pool for region eu-central-1' },
    });

    // KALM registers one for the region: the next pass reserves it and proposes the create; the failure is gone.
    await auditLog(namespace, 'al-eu', ['eu-central-1'], 'SiemApproved');
    expect((await generate()).code).toBe(0);
    expect(onMain(gitdir, shoot)).toBeDefined();
    expect(readPipelineAnnotation((await readRuntime(ref)).metadata.annotations).auditLogError).toBeUndefined();
  });
  it('frees the reservation of a Runtime deleted before its claim (a difference from KIM)', async () => {
    const { namespace, generate } = await setup('unreserve');
    await auditLog(namespace, 'al-r', ['eu-central-1'], 'SiemApproved');
    const { runtimeID, ref } = await createRuntime(namespace, true);
    expect((await generate()).code).toBe(0);
    expect((await readAuditLog(namespace, 'al-r')).metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(runtimeID);

    const deleted = await env.kcp.delete(ref);
    expect(deleted.ok ? 'deleting' : describeFailure(deleted)).toBe('deleting');
    expect((await generate()).code).toBe(0);
    const freed = await readAuditLog(namespace, 'al-r');
    expect(freed.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBeUndefined();
    expect(freed.metadata.labels?.[LABEL_RESERVED_AT]).toBeUndefined();
    expect(freed.spec?.orphaned).toBeUndefined();
  });

  it('decides again on an AuditLog KALM updated after the pool was read (409 from the API server), once', async () => {
    const namespace = await createTestNamespace(env.kcp, 'kcp-alg-');
    await auditLog(namespace, 'al-s', ['eu-central-1'], 'RegistrationReady');
    await auditLog(namespace, 'al-t', ['eu-central-1'], 'RegistrationReady');
    const pool = kcpAuditLogPool(env.kcp, namespace);
    const list = pool.list;
    // KALM's status update lands between the pass's LIST and its writes.
    pool.list = async () => {
      const listed = await list();
      await setState(namespace, 'al-s', 'SiemApproved');
      return listed;
    };
    const one = await createRuntime(namespace, true);
    const two = await createRuntime(namespace, true);
    const lines: string[] = [];
    const runtimes = [await readRuntime(one.ref), await readRuntime(two.ref)];
    const result = await settleAuditLogs({
      runtimes: runtimes.map((runtime) => ({ source: 'kcp', runtime })),
      pool,
      shootExists: () => false,
      now: new Date(),
      log: (line) => lines.push(line),
    });
    expect(result.failures).toEqual(new Map());
    expect((await readAuditLog(namespace, 'al-s')).metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(
      one.runtimeID,
    );
    expect((await readAuditLog(namespace, 'al-t')).metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe(
      two.runtimeID,
    );
    expect(lines[0]).toBe(
      `audit-log reserve   ${one.shoot}: AuditLog al-s changed since the pool was read (409); deciding again on it`,
    );
  });
});
