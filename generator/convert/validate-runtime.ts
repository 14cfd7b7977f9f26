// The shape checks the converter relies on. KEB's Runtimes pass them; anything else (a
// hand-written file, a truncated object) gets a FieldError naming the field, never a crash
// somewhere inside an extender.
import { FieldError } from '../../model/errors.js';
import {
  anyObject,
  arrayOf,
  boolean,
  intOrString,
  mapOfStrings,
  number,
  object,
  oneOf,
  string,
} from './support/shape-checks.js';
import { PROVIDER_TYPES, REQUIRED_RUNTIME_LABELS, type Runtime } from '../../model/runtime.js';
import { DNS_1123_LABEL, DNS_1123_SUBDOMAIN } from '../../model/names.js';

const worker = object(
  {
    name: string,
    machine: object({ type: string, image: object({ name: string, version: string }, ['name', 'version']) }, ['image']),
    minimum: number,
    maximum: number,
    maxSurge: intOrString,
    maxUnavailable: intOrString,
    zones: arrayOf(string),
    kubernetes: object({ kubelet: object({ maxPods: number }, ['maxPods']) }, ['kubelet']),
    cri: object(
      { containerRuntimes: arrayOf(object({ type: string, providerConfig: anyObject }, ['providerConfig'])) },
      ['containerRuntimes'],
    ),
    machineControllerManager: object({ machineDrainTimeout: string, maxEvictRetries: number }, [
      'machineDrainTimeout',
      'maxEvictRetries',
    ]),
    providerConfig: anyObject,
    labels: mapOfStrings,
    annotations: mapOfStrings,
  },
  [
    'maxSurge',
    'maxUnavailable',
    'zones',
    'kubernetes',
    'cri',
    'machineControllerManager',
    'providerConfig',
    'labels',
    'annotations',
  ],
);

const oidc = object(
  {
    clientID: string,
    issuerURL: string,
    groupsClaim: string,
    usernameClaim: string,
    usernamePrefix: string,
    groupsPrefix: string,
  },
  ['clientID', 'issuerURL', 'groupsClaim', 'usernameClaim', 'usernamePrefix', 'groupsPrefix'],
);

const runtimeShape = object({
  metadata: object(
    { name: string, namespace: string, labels: mapOfStrings, annotations: mapOfStrings, generation: number },
    ['namespace', 'labels', 'annotations', 'generation'],
  ),
  spec: object(
    {
      shoot: object(
        {
          name: string,
          purpose: string,
          region: string,
          platformRegion: string,
          secretBindingName: string,
          licenceType: string,
          enforceSeedLocation: boolean,
          enableNvidiaOpenshell: boolean,
          kubernetes: object(
            {
              version: string,
              kubeAPIServer: object(
                { oidcConfig: oidc, acl: object({ allowedCIDRs: arrayOf(string) }, ['allowedCIDRs']) },
                ['oidcConfig', 'acl'],
              ),
            },
            ['version', 'kubeAPIServer'],
          ),
          provider: object(
            { type: oneOf(PROVIDER_TYPES, 'provider'), workers: arrayOf(worker), additionalWorkers: arrayOf(worker) },
            ['additionalWorkers'],
          ),
          networking: object({ type: string, pods: string, nodes: string, services: string, dualStack: boolean }, [
            'type',
            'dualStack',
          ]),
          controlPlane: anyObject,
        },
        ['licenceType', 'enforceSeedLocation', 'enableNvidiaOpenshell', 'kubernetes', 'controlPlane'],
      ),
      security: object({
        networking: object({
          filter: object({ egress: object({ enabled: boolean }), ingress: object({ enabled: boolean }) }, ['ingress']),
        }),
      }),
      imageRegistryCache: arrayOf(
        object({
          uid: string,
          config: object(
            {
              upstream: string,
              remoteURL: string,
              secretReferenceName: string,
              garbageCollection: object({ ttl: string }),
              volume: anyObject,
              proxy: anyObject,
            },
            ['remoteURL', 'secretReferenceName', 'garbageCollection', 'volume', 'proxy'],
          ),
        }),
      ),
    },
    ['imageRegistryCache'],
  ),
});

/** Throws a FieldError for the first field the converter cannot work with. */
export function validateRuntime(value: unknown): asserts value is Runtime {
  validateRuntimeShape(value);
  validateRuntimeNames(value);
}

/** Throws a FieldError for the first field of the wrong type or missing: what the converter reads must be there. */
export function validateRuntimeShape(value: unknown): asserts value is Runtime {
  runtimeShape(value, '');
}

/**
 * Throws a FieldError for a required label KEB sets that is missing, or a name Gardener could not hold. Apart from
 * the shape: KIM looks up the audit-log tenant before it checks the labels, and kimops refuses in the same order.
 */
export function validateRuntimeNames(runtime: Runtime): void {
  for (const label of REQUIRED_RUNTIME_LABELS) {
    if (!runtime.metadata.labels?.[label]) {
      throw new FieldError(
        `metadata.labels["${label}"]`,
        'is required; KEB sets it on every Runtime — add it (KIM refuses such Runtimes too)',
      );
    }
  }
  if (!DNS_1123_LABEL.test(runtime.spec.shoot.name)) {
    throw new FieldError(
      'spec.shoot.name',
      `"${runtime.spec.shoot.name}" is not a valid Shoot name; use lower-case letters, digits and "-" (at most 63)`,
    );
  }
  if (!DNS_1123_SUBDOMAIN.test(runtime.spec.shoot.secretBindingName)) {
    throw new FieldError(
      'spec.shoot.secretBindingName',
      `"${runtime.spec.shoot.secretBindingName}" cannot name a binding in Gardener; use lower-case letters, digits, "-" and "."`,
    );
  }
}
