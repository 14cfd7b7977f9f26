// Differential honesty for policies: kimops's verdict (generator/validate/evaluate.ts) must equal the
// real kube-apiserver's (v1.35 of the test plane) for every policy of the default pack and every object
// of the corpus — the pack's examples plus objects fast-check derives from them.
//
// kube-apiserver does not run admission policies for aggregated APIs, and Shoots are served by
// gardener-apiserver, so the policies run against a stand-in: Gardener's Shoot CRD under the group
// policytest.kimops.io (test/fixtures/policy-differential/). The policies come from `kimops policies
// export` (exportPolicies) with their resource rules moved to that group; each is bound alone, with
// validationActions [Deny] (so warn policies are compared too), in a fresh namespace holding the params
// (as its annotations: see testExport for why). CREATE is a dry-run create, UPDATE a dry-run replace of a live object, DELETE a dry-run
// delete of a live object. Denied ↔ kimops failed/error; allowed ↔ passed/not-applicable.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeResult } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { evaluatePolicies, type PolicyResult } from '../../generator/validate/evaluate.js';
import { exportPolicies, type ExportedObject } from '../../generator/validate/export.js';
import type { Operation, Policy } from '../../generator/validate/policy-file.js';
import { EXAMPLES, packExamples, packParams, packPolicies } from '../helpers/policy-pack.js';
import { createTestNamespace } from '../helpers/projects.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const client = env.garden;

const ROOT = new URL('../../', import.meta.url);
const CRD_FILE = new URL('test/fixtures/policy-differential/shoots.policytest.kimops.io.yaml', ROOT);

const GARDENER_GROUP = 'core.gardener.cloud';
const TEST_GROUP = 'policytest.kimops.io';
const TEST_API_VERSION = `${TEST_GROUP}/v1beta1`;
/** Cluster-wide names (policies, bindings) carry it, so runs on the shared plane never meet. */
const RUN = randomBytes(3).toString('hex');
/** How many objects fast-check derives per operation; KIMOPS_POLICY_DIFF_RUNS to hunt. */
const RUNS = Number(process.env.KIMOPS_POLICY_DIFF_RUNS ?? 40);
/** kube-apiserver's policy informer picks a new binding up within about a second. */
const BINDING_TIMEOUT_MS = 20_000;

type Shoot = KubeObject & { spec: Record<string, unknown> };

const read = (url: URL) => readFileSync(url, 'utf8');
const policies = packPolicies;
const params = packParams;

// ---------------------------------------------------------------------------------------------
// The corpus.

interface Case {
  /** Where it comes from: `<policy>/<file>` for examples, `generated/<op>-<n>` for fast-check's. */
  id: string;
  operation: Exclude<Operation, 'CONNECT'>;
  /** After the change (CREATE, UPDATE); null on DELETE. */
  object: Shoot | null;
  /** The live object (UPDATE, DELETE); null on CREATE. */
  oldObject: Shoot | null;
  /** The example's own policy and promise, for the probe that tells a binding is in force. */
  policy?: string;
  expected?: 'passed' | 'failed';
}

function exampleCases(): Case[] {
  return packExamples().map(({ policy, file, expected, operation, object, oldObject }) => ({
    id: `${policy}/${file}`,
    operation,
    object: object as Shoot | null,
    oldObject: oldObject as Shoot | null,
    policy,
    expected,
  }));
}

const AWS = parse(read(new URL('ssh-access-disabled/pass-rendered.yaml', EXAMPLES))) as Shoot;
const GCP_KSA = parse(read(new URL('ksa-assured-workload/pass-rendered.yaml', EXAMPLES))) as Shoot;
const RUNTIME_ID = 'infrastructuremanager.kyma-project.io/runtime-id';
/** Runtime ids: the two the params know (an EU-access one and a KSA one), one unknown, an empty one. */
const RUNTIME_IDS = [
  '61dd7761-08dc-59ce-840d-342f5e487157',
  '93d468f8-19ae-5e51-844e-a4173f17e388',
  '00000000-0000-0000-0000-000000000000',
  '',
];
/** Valid, invalid and non-strict semvers, around stage's minimum 1.33.0. */
const VERSIONS = [
  '1.33.3',
  '1.33.0',
  '1.32.9',
  '1.34.1',
  '1.33.0-rc.1',
  '1.33.3+build.1',
  '1.33',
  'v1.33.3',
  '01.33.3',
  '1.33.03',
];
const INT_OR_STRING = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom('0%', '25%', '100%', '1', '0', '1.5', 'x'),
);

const worker = fc.record(
  {
    minimum: fc.integer({ min: 0, max: 5 }),
    maximum: fc.integer({ min: 0, max: 5 }),
    maxSurge: INT_OR_STRING,
    maxUnavailable: INT_OR_STRING,
    zones: fc.subarray(['eu-central-1a', 'eu-central-1b', 'me-central2-a', 'me-central2-b', 'mars-1a']),
    httpTokens: fc.constantFrom('required', 'optional', ''),
  },
  { requiredKeys: ['minimum', 'maximum'] },
);

/** A Shoot derived from a rendered one, changed where the policies look. */
const createdShoot = fc
  .record(
    {
      base: fc.constantFrom(AWS, GCP_KSA),
      ssh: fc.constantFrom<boolean | null>(true, false, null),
      version: fc.constantFrom(...VERSIONS),
      workers: fc.array(worker, { minLength: 1, maxLength: 3 }),
      region: fc.constantFrom('eu-central-1', 'eu-west-2', 'me-central2', 'mars-1'),
      providerType: fc.constantFrom('aws', 'gcp'),
      dropExtensions: fc.subarray(['shoot-networking-filter', 'shoot-auditlog-service']),
      auditLog: fc.constantFrom('keep', 'disabled', 'no-tenant', 'empty-url'),
      ksaToleration: fc.boolean(),
      euAccess: fc.boolean(),
      runtimeId: fc.constantFrom(...RUNTIME_IDS, null),
    },
    { requiredKeys: ['base'] },
  )
  .map((m) => {
    const shoot = structuredClone(m.base);
    const spec = shoot.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test data surgery
    if (m.ssh !== undefined) {
      if (m.ssh === null) delete spec.provider.workersSettings;
      else spec.provider.workersSettings = { sshAccess: { enabled: m.ssh } };
    }
    if (m.version) spec.kubernetes.version = m.version;
    if (m.region) spec.region = m.region;
    if (m.providerType) spec.provider.type = m.providerType;
    if (m.workers) {
      spec.provider.workers = m.workers.map((w, i) => {
        const pool = {
          ...structuredClone(spec.provider.workers[0]),
          name: `pool-${i}`,
          minimum: w.minimum,
          maximum: w.maximum,
        } as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        for (const key of ['maxSurge', 'maxUnavailable', 'zones'] as const) {
          if (w[key] === undefined) Reflect.deleteProperty(pool, key);
          else pool[key] = w[key];
        }
        if (w.httpTokens !== undefined)
          pool.providerConfig = {
            ...pool.providerConfig,
            instanceMetadataOptions: w.httpTokens ? { httpTokens: w.httpTokens } : {},
          };
        return pool;
      });
    }
    if (m.dropExtensions)
      spec.extensions = spec.extensions.filter((e: { type: string }) => !m.dropExtensions?.includes(e.type));
    const auditLog = (spec.extensions ?? []).find((e: { type: string }) => e.type === 'shoot-auditlog-service');
    if (auditLog && m.auditLog === 'disabled') auditLog.disabled = true;
    if (auditLog && m.auditLog === 'no-tenant') delete auditLog.providerConfig.tenantID;
    if (auditLog && m.auditLog === 'empty-url') auditLog.providerConfig.serviceURL = '';
    if (m.ksaToleration !== undefined) spec.tolerations = m.ksaToleration ? [{ key: 'ksa-assured-workload' }] : [];
    if (m.euAccess !== undefined) {
      if (m.euAccess) spec.accessRestrictions = [{ name: 'eu-access-only' }];
      else delete spec.accessRestrictions;
    }
    if (m.runtimeId !== undefined) setRuntimeId(shoot, m.runtimeId);
    return shoot;
  });

function setRuntimeId(shoot: Shoot, id: string | null): void {
  const annotations = { ...(shoot.metadata.annotations as Record<string, string>) };
  if (id === null) Reflect.deleteProperty(annotations, RUNTIME_ID);
  else annotations[RUNTIME_ID] = id;
  shoot.metadata.annotations = annotations;
}

/** A live Shoot and a change to it, in the fields the UPDATE policies guard. */
const updatedShoot = fc
  .record({
    liveBinding: fc.constantFrom('credentials', 'secret', 'both'),
    newBinding: fc.constantFrom('same', 'credentials', 'secret', 'other', 'none'),
    liveVersion: fc.constantFrom('1.33.3', '1.34.1', '1.33.0-rc.1'),
    version: fc.constantFrom(...VERSIONS),
    region: fc.constantFrom('eu-central-1', 'eu-west-2'),
    providerType: fc.constantFrom('aws', 'gcp'),
    networking: fc.subarray(['type', 'pods', 'services']),
    dropNetworking: fc.subarray(['type', 'pods', 'services']),
  })
  .map((m) => {
    const live = structuredClone(AWS);
    const liveSpec = live.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    liveSpec.kubernetes.version = m.liveVersion;
    if (m.liveBinding !== 'credentials') liveSpec.secretBindingName = 'aws-hap-0001';
    if (m.liveBinding === 'secret') delete liveSpec.credentialsBindingName;
    const next = structuredClone(live);
    const spec = next.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    spec.kubernetes.version = m.version;
    spec.region = m.region;
    spec.provider.type = m.providerType;
    if (m.newBinding !== 'same') {
      delete spec.secretBindingName;
      delete spec.credentialsBindingName;
      if (m.newBinding === 'credentials') spec.credentialsBindingName = 'aws-hap-0001';
      if (m.newBinding === 'secret') spec.secretBindingName = 'aws-hap-0001';
      if (m.newBinding === 'other') spec.credentialsBindingName = 'aws-hap-0002';
    }
    const changed: Record<string, string> = { type: 'cilium', pods: '10.200.0.0/13', services: '10.208.0.0/13' };
    for (const f of m.networking) spec.networking[f] = changed[f];
    for (const f of m.dropNetworking) Reflect.deleteProperty(spec.networking, f);
    return { live, next };
  });

/** A live Shoot being deleted, with or without (a known) Runtime. */
const deletedShoot = fc.constantFrom(...RUNTIME_IDS, null).map((id) => {
  const live = structuredClone(AWS);
  setRuntimeId(live, id);
  return live;
});

function generatedCases(): Case[] {
  const sample = <T>(arbitrary: fc.Arbitrary<T>, seed: number) => fc.sample(arbitrary, { numRuns: RUNS, seed });
  return [
    ...sample(createdShoot, 1).map((object, i): Case => ({
      id: `generated/create-${i}`,
      operation: 'CREATE',
      object,
      oldObject: null,
    })),
    ...sample(updatedShoot, 2).map(({ live, next }, i): Case => ({
      id: `generated/update-${i}`,
      operation: 'UPDATE',
      object: next,
      oldObject: live,
    })),
    ...sample(deletedShoot, 3)
      .slice(0, 10)
      .map((live, i): Case => ({ id: `generated/delete-${i}`, operation: 'DELETE', object: null, oldObject: live })),
  ];
}

// ---------------------------------------------------------------------------------------------
// The API server's side.

const SHOOTS = `/apis/${TEST_GROUP}/v1beta1`;
const shootPath = (namespace: string, name?: string) =>
  `${SHOOTS}/namespaces/${namespace}/shoots${name ? `/${name}` : ''}`;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const DRY_RUN = { dryRun: 'All', fieldValidation: 'Strict' };
/** How kube-apiserver denies while a binding's params are not (yet) found. */
const BINDING_NOT_READY = 'failed to configure binding';

/** The object as the stand-in CRD serves it: the test group, the test namespace, a name of its own. */
function onTestPlane(shoot: Shoot, namespace: string, name: string): Shoot {
  const copy = structuredClone(shoot);
  copy.apiVersion = TEST_API_VERSION;
  copy.metadata = { ...copy.metadata, name, namespace };
  return copy;
}

/**
 * The stand-in CRD (docs/contracts/keb-and-gardener-shoot.md §C) is older than gardener-apiserver: it lacks
 * spec.dns.providers[].credentialsRef, which no policy reads. Both sides get the objects without it,
 * so the server can check them with fieldValidation=Strict: nothing else is pruned, and both judge
 * the same object.
 */
function withoutFieldsTheCrdLacks(shoot: Shoot | null): Shoot | null {
  if (!shoot) return null;
  const copy = structuredClone(shoot);
  const dns = copy.spec.dns as { providers?: Record<string, unknown>[] } | undefined;
  for (const provider of dns?.providers ?? []) delete provider.credentialsRef;
  return copy;
}

/** kimops sees the same object as the Gardener Shoot it stands for. */
function asGardenerShoot(shoot: Shoot | null): Shoot | null {
  return shoot && { ...shoot, apiVersion: `${GARDENER_GROUP}/v1beta1` };
}

/**
 * The exported objects, moved to the test group and namespace; each policy bound alone, with Deny.
 *
 * Known test-plane limitation: its kube-apiserver never finds a namespaced ConfigMap as a binding's
 * params ("failed to configure binding: no params found", with paramRef by name or selector, with or
 * without paramRef.namespace, however long one waits), while a cluster-scoped param kind is found at
 * once. So the landscape facts travel as the annotations of the test namespace instead: paramKind
 * Namespace, `params.data` read as `params.metadata.annotations` (both a string → string map, so
 * `in`, `[]` and every function mean the same). The CEL is compared unchanged otherwise; the exported
 * ConfigMap's data is what the annotations hold.
 */
function testExport(namespace: string) {
  const { objects } = exportPolicies({ landscape: 'stage', project: 'unused', policies, params, namespace });
  const configMap = objects.find((o) => o.kind === 'ConfigMap') as ExportedObject & { data: Record<string, string> };
  const vaps = new Map<string, ExportedObject>();
  const bindings = new Map<string, ExportedObject>();
  for (const object of objects) {
    if (object.kind === 'ValidatingAdmissionPolicy') {
      const spec = JSON.parse(JSON.stringify(object.spec).replaceAll('params.data', 'params.metadata.annotations')) as {
        paramKind?: unknown;
        matchConstraints: { resourceRules: { apiGroups: string[] }[] };
      };
      if (spec.paramKind) spec.paramKind = { apiVersion: 'v1', kind: 'Namespace' };
      for (const rule of spec.matchConstraints.resourceRules)
        rule.apiGroups = rule.apiGroups.map((g) => (g === GARDENER_GROUP ? TEST_GROUP : g));
      vaps.set(object.metadata.name, {
        ...object,
        metadata: { ...object.metadata, name: `${object.metadata.name}-${RUN}` },
        spec,
      });
    }
    if (object.kind === 'ValidatingAdmissionPolicyBinding') {
      const spec = object.spec as {
        policyName: string;
        validationActions: string[];
        paramRef?: { parameterNotFoundAction: string };
      };
      bindings.set(spec.policyName, {
        ...object,
        metadata: { ...object.metadata, name: `${spec.policyName}-${RUN}` },
        spec: {
          ...spec,
          policyName: `${spec.policyName}-${RUN}`,
          validationActions: ['Deny'],
          ...(spec.paramRef && {
            paramRef: { name: namespace, parameterNotFoundAction: spec.paramRef.parameterNotFoundAction },
          }),
        },
      });
    }
  }
  return { paramsData: configMap.data, vaps, bindings };
}

type Verdict = { denied: false } | { denied: true; message: string };

function describeResult(result: KubeResult<unknown>): string {
  return result.ok ? `${result.status}` : `${result.status} ${result.error.message ?? JSON.stringify(result.error)}`;
}

async function must<T>(what: string, result: Promise<KubeResult<T>>): Promise<T> {
  const done = await result;
  if (!done.ok) throw new Error(`${what}: ${describeResult(done)}`);
  return done.body;
}

// ---------------------------------------------------------------------------------------------

interface Prepared extends Case {
  name: string;
  /** resourceVersion of the live object (UPDATE). */
  resourceVersion?: string;
}

interface Disagreement {
  policy: string;
  case: string;
  operation: string;
  kimops: string;
  apiServer: string;
}

describe('policies: kimops and kube-apiserver give the same verdict', () => {
  let namespace = '';
  let setup: ReturnType<typeof testExport>;
  const cases: Prepared[] = [...exampleCases(), ...generatedCases()].map((c, i) => ({
    ...c,
    object: withoutFieldsTheCrdLacks(c.object),
    oldObject: withoutFieldsTheCrdLacks(c.oldObject),
    name: `c${i}-${(c.object ?? c.oldObject)?.metadata.name ?? 'x'}`,
  }));

  /** The API server's verdict on one case for the policy `vap` (undefined: no policy bound). */
  async function serverVerdict(c: Prepared, vap?: string): Promise<Verdict> {
    let result: KubeResult<unknown>;
    if (c.operation === 'CREATE') {
      result = await client.request('POST', shootPath(namespace), {
        body: onTestPlane(c.object as Shoot, namespace, c.name),
        query: DRY_RUN,
      });
    } else if (c.operation === 'UPDATE') {
      const object = onTestPlane(c.object as Shoot, namespace, c.name);
      object.metadata.resourceVersion = c.resourceVersion;
      result = await client.request('PUT', shootPath(namespace, c.name), { body: object, query: DRY_RUN });
    } else {
      result = await client.request('DELETE', shootPath(namespace, c.name), { query: { dryRun: 'All' } });
    }
    if (result.ok) return { denied: false };
    const message = result.error.message ?? '';
    if (vap && message.includes(`ValidatingAdmissionPolicy '${vap}'`)) return { denied: true, message };
    throw new Error(
      `${c.id} (${c.operation}): the API server refused it for another reason than the policy: ${describeResult(result)}`,
    );
  }

  function kimopsResult(c: Prepared, policy: Policy): PolicyResult {
    const [result] = evaluatePolicies([policy], {
      object: asGardenerShoot(c.object),
      oldObject: asGardenerShoot(c.oldObject),
      operation: c.operation,
      params,
      landscape: 'stage',
    });
    if (!result) throw new Error('no result');
    return result;
  }

  const kimopsDenies = (r: PolicyResult) => r.status === 'failed' || r.status === 'error';

  beforeAll(async () => {
    // The stand-in CRD; kept between runs (creating it again is a no-op), removed by nobody else.
    const [crd] = parseAllDocuments(read(CRD_FILE)).map((d) => d.toJS() as KubeObject);
    await must('install the Shoot stand-in CRD', client.apply(crd as KubeObject, 'kimops-test', { force: true }));
    await eventually('the stand-in CRD to be served', async () => {
      const got = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/shoots.${TEST_GROUP}`,
      );
      const established =
        got.ok && got.body.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      if (!established) return undefined;
      return (await client.request('GET', `${SHOOTS}/shoots`)).ok || undefined;
    });

    namespace = await createTestNamespace(env.garden, 'policy-diff-');
    setup = testExport(namespace);
    await must(
      'annotate the namespace with the params',
      client.patch(
        { apiVersion: 'v1', kind: 'Namespace', name: namespace },
        { metadata: { annotations: setup.paramsData } },
      ),
    );
    for (const vap of setup.vaps.values())
      await must(
        `create policy ${vap.metadata.name}`,
        client.request('POST', `${ADMISSION}/validatingadmissionpolicies`, { body: vap }),
      );

    // Live objects for UPDATE and DELETE, created while no policy is bound.
    for (const c of cases) {
      if (c.operation === 'CREATE') continue;
      const live = await must(
        `create live object ${c.id}`,
        client.request<KubeObject>('POST', shootPath(namespace), {
          body: onTestPlane(c.oldObject as Shoot, namespace, c.name),
          query: { fieldValidation: 'Strict' },
        }),
      );
      c.resourceVersion = live.metadata.resourceVersion;
    }
  });

  afterAll(async () => {
    for (const name of setup?.bindings.values() ?? [])
      await client.request('DELETE', `${ADMISSION}/validatingadmissionpolicybindings/${name.metadata.name}`);
    for (const vap of setup?.vaps.values() ?? [])
      await client.request('DELETE', `${ADMISSION}/validatingadmissionpolicies/${vap.metadata.name}`);
    // The namespace stays (no namespace controller runs on the plane); its content goes.
    if (namespace) await client.request('DELETE', `${SHOOTS}/namespaces/${namespace}/shoots`);
  });

  it('accepts every object of the corpus while no policy is bound (the CRD schema lets them all through)', async () => {
    const refused: string[] = [];
    for (const c of cases) {
      try {
        await serverVerdict(c);
      } catch (error) {
        refused.push((error as Error).message);
      }
    }
    expect(refused).toEqual([]);
  });

  it('agrees on every object for every policy, each bound alone', async () => {
    const disagreements: Disagreement[] = [];
    let compared = 0;
    let denied = 0;
    let errors = 0;
    for (const policy of policies) {
      const vap = `${policy.name}-${RUN}`;
      const binding = setup.bindings.get(policy.name) as ExportedObject;
      // The probes: an object kimops denies and one it lets through, ideally the policy's own examples.
      // The binding is in force once the first is denied by a verdict and the second allowed: until
      // its params informer has synced, kube-apiserver denies everything with "no params found".
      const probes = ['failed', 'passed'].map((expected) => {
        const own = cases.find((c) => c.policy === policy.name && c.expected === expected);
        const probe = own ?? cases.find((c) => kimopsDenies(kimopsResult(c, policy)) === (expected === 'failed'));
        if (!probe)
          throw new Error(
            `no object of the corpus ${expected} ${policy.name}; add a ${expected === 'failed' ? 'fail' : 'pass'}-* example`,
          );
        return probe;
      });
      const [failing, passing] = probes as [Prepared, Prepared];

      await must(
        `bind ${vap}`,
        client.request('POST', `${ADMISSION}/validatingadmissionpolicybindings`, { body: binding }),
      );
      let inForce = true;
      try {
        await eventually(
          `binding of ${vap} to deny ${failing.id} and allow ${passing.id}`,
          async () => {
            const denial = await serverVerdict(failing, vap);
            const ready =
              denial.denied &&
              !denial.message.includes(BINDING_NOT_READY) &&
              !(await serverVerdict(passing, vap)).denied;
            return ready || undefined;
          },
          BINDING_TIMEOUT_MS,
          100,
        );
      } catch (error) {
        inForce = false;
        disagreements.push({
          policy: policy.name,
          case: `${failing.id}, ${passing.id}`,
          operation: 'probe',
          kimops: 'failed, passed',
          apiServer: (error as Error).message,
        });
      }

      if (inForce) {
        for (const c of cases) {
          const mine = kimopsResult(c, policy);
          const theirs = await serverVerdict(c, vap);
          compared++;
          if (theirs.denied) denied++;
          if (mine.status === 'error') errors++;
          if (kimopsDenies(mine) !== theirs.denied) {
            disagreements.push({
              policy: policy.name,
              case: c.id,
              operation: c.operation,
              kimops: `${mine.status}${mine.messages.length ? `: ${mine.messages.join(' | ')}` : mine.reason ? ` (${mine.reason})` : ''}`,
              apiServer: theirs.denied ? `denied: ${theirs.message}` : 'allowed',
            });
          }
        }
      }

      await must(
        `unbind ${vap}`,
        client.request('DELETE', `${ADMISSION}/validatingadmissionpolicybindings/${binding.metadata.name}`),
      );
      // The next policy is compared alone only once this one has stopped denying.
      await eventually(
        `unbinding of ${vap}`,
        async () => (!(await serverVerdict(failing, vap)).denied ? true : undefined),
        BINDING_TIMEOUT_MS,
        100,
      );
    }
    console.log(
      `policy differential: ${cases.length} objects × ${policies.length} policies = ${compared} verdicts compared, ${denied} denied (${errors} by an evaluation error), ${disagreements.length} disagreements`,
    );
    expect(
      disagreements,
      disagreements
        .map((d) => `${d.policy} × ${d.case} (${d.operation}): kimops ${d.kimops}; kube-apiserver ${d.apiServer}`)
        .join('\n'),
    ).toEqual([]);
  }, 180_000);
});
