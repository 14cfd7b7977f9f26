// The invariants behind the differences the KIM oracle found (docs/converter.md, "The KIM oracle"), over generated
// Runtimes: so the next divergence of one of these kinds is found by kimops's own suite, without KIM's answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_LICENCE_TYPE } from '../../model/contract.js';
import { formatGoDuration, parseGoDuration } from '../../model/go-time.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { toGoYaml } from '../../rules/go-yaml.js';
import { runtime, SETTINGS } from '../../test/helpers/runtime-arbitrary.js';
import { convertRuntime } from './convert-runtime.js';

function converted(rt: Runtime, live?: Shoot) {
  const result = convertRuntime({ runtime: rt, settings: SETTINGS, ...(live && { live }) });
  if (!result.ok) throw result.error;
  return result;
}

/** A Go duration as a person writes one: one to three units, any of them. */
const goDuration = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 120 }), fc.constantFrom('h', 'm', 's', 'ms')), {
    minLength: 1,
    maxLength: 3,
  })
  .map((parts) => parts.map(([n, unit]) => `${n}${unit}`).join(''));

/** Worker fields that are durations in Gardener's API, as paths inside a worker. */
const DURATION_FIELDS = [
  ['machineControllerManager', 'machineDrainTimeout'],
  ['machineControllerManager', 'machineHealthTimeout'],
  ['clusterAutoscaler', 'maxNodeProvisionTime'],
  ['kubernetes', 'kubelet', 'imageMinimumGCAge'],
  ['kubernetes', 'kubelet', 'evictionSoftGracePeriod', 'memoryAvailable'],
] as const;

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[path.at(-1) as string] = value;
}

function valueAt(target: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], target);
}

/** Text that YAML writers quote in different ways: indicators, numbers, booleans, colons, quotes, spaces. */
const awkwardText = fc.oneof(
  fc.constantFrom('', '-', 'sub:', 'oidc:', "it's", 'a #b', 'a: b', '123', '0x1F', 'true', 'on', '~', '1:30', '*x'),
  fc.constantFrom('2026-12-02', ' lead', 'trail ', '#tag', 'x-y', 'groups', 'https://a.example:8443/path'),
  fc.stringMatching(/^[ -~]{0,12}$/),
);

describe("converter invariants behind KIM's answers", () => {
  it('writes the licence-type annotation only for a non-empty licence type, as KIM', () => {
    fc.assert(
      fc.property(runtime, fc.constantFrom(undefined, '', 'SAPDevelopment', 'partner'), (rt, licence) => {
        if (licence === undefined) delete rt.spec.shoot.licenceType;
        else rt.spec.shoot.licenceType = licence;
        const annotations = converted(rt).shoot.metadata.annotations ?? {};
        expect(annotations[ANNOTATION_LICENCE_TYPE]).toBe(licence || undefined);
      }),
      { numRuns: 100 },
    );
  });

  it("writes the Runtime's worker durations as Go prints them: the same length of time, Go's form", () => {
    fc.assert(
      fc.property(runtime, fc.constantFrom(...DURATION_FIELDS), goDuration, (rt, path, text) => {
        setAt(rt.spec.shoot.provider.workers[0] as unknown as Record<string, unknown>, path, text);
        const written = valueAt(converted(rt).shoot.spec.provider.workers[0], path);
        const nanos = parseGoDuration(text) as number;
        expect(written).toBe(formatGoDuration(nanos));
        expect(parseGoDuration(written as string)).toBe(nanos);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a worker duration Go cannot read, naming the field', () => {
    fc.assert(
      fc.property(runtime, fc.constantFrom('soon', '30 minutes', '1d', '-'), (rt, text) => {
        setAt(rt.spec.shoot.provider.workers[0] as unknown as Record<string, unknown>, DURATION_FIELDS[0], text);
        const result = convertRuntime({ runtime: rt, settings: SETTINGS });
        expect(result.ok).toBe(false);
        if (!result.ok)
          expect(result.error.field).toBe(
            'spec.shoot.provider.workers[0].machineControllerManager.machineDrainTimeout',
          );
      }),
      { numRuns: 30 },
    );
  });

  it('writes the deprecated empty worker fields KIM writes, for Alicloud zones and OpenStack networks', () => {
    fc.assert(
      fc.property(
        runtime.filter((rt) => ['alicloud', 'openstack'].includes(rt.spec.shoot.provider.type)),
        (rt) => {
          const networks = converted(rt).shoot.spec.provider.infrastructureConfig?.networks as {
            worker?: string;
            workers?: string;
            zones?: { worker?: string; workers?: string }[];
          };
          if (rt.spec.shoot.provider.type === 'openstack')
            expect(networks).toMatchObject({ worker: '', workers: expect.any(String) });
          else {
            expect(networks.zones?.length).toBeGreaterThan(0);
            for (const zone of networks.zones ?? [])
              expect(zone).toMatchObject({ worker: '', workers: expect.any(String) });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("writes the structured-auth config as KIM marshals it, whatever the Runtime's claims and prefixes hold", () => {
    fc.assert(
      fc.property(runtime, awkwardText, awkwardText, awkwardText, (rt, usernamePrefix, groupsPrefix, claim) => {
        const apiServer = (rt.spec.shoot.kubernetes ??= {}).kubeAPIServer ?? {};
        rt.spec.shoot.kubernetes.kubeAPIServer = {
          ...apiServer,
          oidcConfig: {
            clientID: 'client',
            issuerURL: 'https://issuer.example',
            usernameClaim: claim || 'sub',
            usernamePrefix,
            groupsClaim: 'groups',
            groupsPrefix,
          },
        };
        const text = converted(rt).companions[0]?.data?.['config.yaml'] as string;
        // What KIM marshals: its AuthenticationConfiguration for this OIDC config, through sigs.k8s.io/yaml.
        const username = { claim: claim || 'sub', ...(usernamePrefix && { prefix: usernamePrefix }) };
        const expected = {
          apiVersion: 'apiserver.config.k8s.io/v1beta1',
          kind: 'AuthenticationConfiguration',
          jwt: [
            {
              issuer: { url: 'https://issuer.example', audiences: ['client'] },
              claimMappings: { username, groups: { claim: 'groups', prefix: groupsPrefix } },
            },
          ],
        };
        expect(text).toBe(toGoYaml(expected));
        expect(text.split('\n').filter((line) => /^[^\s-]/.test(line))).toEqual([
          'apiVersion: apiserver.config.k8s.io/v1beta1',
          'jwt:',
          'kind: AuthenticationConfiguration',
        ]);
      }),
      { numRuns: 150 },
    );
  });

  it('reads and writes an audit-log tenant whole: ID, URL and Secret from one source, never mixed', () => {
    const landscape = SETTINGS.auditLogTenants.aws?.['eu-central-1'];
    const customer = { tenantID: 'customer', serviceURL: 'https://customer.example', secretName: 'customer-secret' };
    fc.assert(
      fc.property(
        runtime.filter((rt) => rt.spec.shoot.provider.type === 'aws'),
        fc.constantFrom('migrated', 'patched-after-migration', 'moved-back', 'shared'),
        fc.boolean(),
        (rt, shape, access) => {
          const live = converted(rt).shoot;
          const extension = live.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service');
          if (!extension?.providerConfig) throw new Error('an AWS Shoot of these settings reports to the audit log');
          const dedicated = {
            name: 'dedicated-auditlog-credentials',
            resourceRef: { apiVersion: 'v1', kind: 'Secret', name: customer.secretName },
          };
          if (shape !== 'shared') live.spec.resources = [...(live.spec.resources ?? []), dedicated];
          if (shape === 'migrated' || shape === 'patched-after-migration')
            Object.assign(extension.providerConfig, { tenantID: customer.tenantID, serviceURL: customer.serviceURL });
          if (shape === 'migrated') extension.providerConfig.secretReferenceName = 'dedicated-auditlog-credentials';
          if (shape === 'patched-after-migration') {
            const credentials = live.spec.resources?.find((r) => r.name === 'auditlog-credentials');
            if (credentials) credentials.resourceRef.name = customer.secretName;
          }
          rt.spec.auditLogAccessEnabled = access;
          const shoot = converted(rt, live).shoot;
          const config = shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig ?? {};
          const secret = shoot.spec.resources?.find((r) => r.name === config.secretReferenceName)?.resourceRef.name;
          const written = { tenantID: config.tenantID, serviceURL: config.serviceURL, secretName: secret };
          expect([landscape, customer]).toContainEqual(written);
          // The customer's tenant stays wherever the live Shoot reports to it.
          if (shape === 'migrated' || shape === 'patched-after-migration') expect(written).toEqual(customer);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('names a missing audit-log tenant before a missing label, as KIM checks them', () => {
    const mandatory = { ...SETTINGS, auditLogTenants: {}, flags: { ...SETTINGS.flags, auditLogMandatory: true } };
    fc.assert(
      fc.property(runtime, fc.nat(), (rt, pick) => {
        const labels = Object.keys(rt.metadata.labels ?? {});
        delete rt.metadata.labels?.[labels[pick % labels.length] as string];
        const result = convertRuntime({ runtime: rt, settings: mandatory });
        expect(result.ok ? 'converted' : result.error.field).toBe('spec.shoot.region');
      }),
      { numRuns: 60 },
    );
  });

  it('in update mode leaves out what the Runtime no longer asks for: maintenance window, EU access, seed selector', () => {
    fc.assert(
      fc.property(
        runtime.filter((rt) => rt.spec.shoot.provider.type === 'aws'),
        (rt) => {
          const asked = structuredClone(rt);
          Object.assign(asked.spec.shoot, {
            purpose: 'production',
            platformRegion: 'cf-eu11',
            enforceSeedLocation: true,
          });
          const live = converted(asked).shoot;
          expect(live.spec.maintenance?.timeWindow).toBeDefined();
          expect(live.spec.accessRestrictions).toBeDefined();
          expect(live.spec.seedSelector).toBeDefined();
          Object.assign(rt.spec.shoot, {
            purpose: 'development',
            platformRegion: 'cf-eu10',
            enforceSeedLocation: false,
          });
          const updated = converted(rt, live).shoot;
          expect([
            updated.spec.maintenance?.timeWindow,
            updated.spec.accessRestrictions,
            updated.spec.seedSelector,
          ]).toEqual([undefined, undefined, undefined]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
