// The shape checks the converter relies on. KEB's Runtimes pass them; anything else (a
// hand-written file, a truncated object) gets a FieldError naming the field, never a crash
// somewhere inside an extender.
import { FieldError } from '../../model/errors.js';
import { PROVIDER_TYPES, REQUIRED_RUNTIME_LABELS, type Runtime } from '../../model/runtime.js';
import { isJsonObject } from '../../model/json.js';
import { DNS_1123_LABEL, DNS_1123_SUBDOMAIN } from '../../model/names.js';

type Check = (value: unknown, path: string) => void;


const string: Check = (v, path) => {
  if (typeof v !== 'string') throw new FieldError(path, `must be a string; got ${describe(v)}`);
};
const number: Check = (v, path) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new FieldError(path, `must be a number; got ${describe(v)}`);
};
const boolean: Check = (v, path) => {
  if (typeof v !== 'boolean') throw new FieldError(path, `must be true or false; got ${describe(v)}`);
};
const intOrString: Check = (v, path) => {
  if (typeof v !== 'number' && typeof v !== 'string') throw new FieldError(path, `must be a number or a percentage string; got ${describe(v)}`);
};

function oneOf(values: readonly string[], what: string): Check {
  return (v, path) => {
    string(v, path);
    if (!values.includes(v as string)) throw new FieldError(path, `${what} not supported: "${String(v)}"; use one of ${values.join(', ')}`);
  };
}

function object(fields: Record<string, Check>, optional: string[] = []): Check {
  return (v, path) => {
    if (!isJsonObject(v)) throw new FieldError(path, `must be an object; got ${describe(v)}`);
    for (const [key, check] of Object.entries(fields)) {
      const child = v[key];
      const childPath = path ? `${path}.${key}` : key;
      if (child === undefined || child === null) {
        if (optional.includes(key)) continue;
        throw new FieldError(childPath, 'is required');
      }
      check(child, childPath);
    }
  };
}

function arrayOf(item: Check): Check {
  return (v, path) => {
    if (!Array.isArray(v)) throw new FieldError(path, `must be a list; got ${describe(v)}`);
    // An index loop, not forEach: forEach skips the holes of a sparse array.
    for (let i = 0; i < v.length; i++) item(v[i], `${path}[${i}]`);
  };
}

const mapOfStrings: Check = (v, path) => {
  if (!isJsonObject(v)) throw new FieldError(path, `must be a map of strings; got ${describe(v)}`);
  for (const [key, value] of Object.entries(v)) string(value, `${path}["${key}"]`);
};

const anyObject: Check = (v, path) => {
  if (!isJsonObject(v)) throw new FieldError(path, `must be an object; got ${describe(v)}`);
};

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
    cri: object({ containerRuntimes: arrayOf(object({ type: string, providerConfig: anyObject }, ['providerConfig'])) }, ['containerRuntimes']),
    machineControllerManager: object({ machineDrainTimeout: string, maxEvictRetries: number }, ['machineDrainTimeout', 'maxEvictRetries']),
    providerConfig: anyObject,
    labels: mapOfStrings,
    annotations: mapOfStrings,
  },
  ['maxSurge', 'maxUnavailable', 'zones', 'kubernetes', 'cri', 'machineControllerManager', 'providerConfig', 'labels', 'annotations'],
);

const oidc = object({ clientID: string, issuerURL: string, groupsClaim: string, usernameClaim: string, usernamePrefix: string, groupsPrefix: string }, [
  'clientID',
  'issuerURL',
  'groupsClaim',
  'usernameClaim',
  'usernamePrefix',
  'groupsPrefix',
]);

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
              kubeAPIServer: object({ oidcConfig: oidc, acl: object({ allowedCIDRs: arrayOf(string) }, ['allowedCIDRs']) }, ['oidcConfig', 'acl']),
            },
            ['version', 'kubeAPIServer'],
          ),
          provider: object({ type: oneOf(PROVIDER_TYPES, 'provider'), workers: arrayOf(worker), additionalWorkers: arrayOf(worker) }, ['additionalWorkers']),
          networking: object({ type: string, pods: string, nodes: string, services: string, dualStack: boolean }, ['type', 'dualStack']),
          controlPlane: anyObject,
        },
        ['licenceType', 'enforceSeedLocation', 'enableNvidiaOpenshell', 'kubernetes', 'controlPlane'],
      ),
      security: object({
        networking: object({ filter: object({ egress: object({ enabled: boolean }), ingress: object({ enabled: boolean }) }, ['ingress']) }),
      }),
      imageRegistryCache: arrayOf(
        object({
          uid: string,
          config: object(
            { upstream: string, remoteURL: string, secretReferenceName: string, garbageCollection: object({ ttl: string }), volume: anyObject, proxy: anyObject },
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
  runtimeShape(value, '');
  const runtime = value as Runtime;
  for (const label of REQUIRED_RUNTIME_LABELS) {
    if (!runtime.metadata.labels?.[label]) {
      throw new FieldError(`metadata.labels["${label}"]`, 'is required; KEB sets it on every Runtime — add it (KIM refuses such Runtimes too)');
    }
  }
  if (!DNS_1123_LABEL.test(runtime.spec.shoot.name)) {
    throw new FieldError('spec.shoot.name', `"${runtime.spec.shoot.name}" is not a valid Shoot name; use lower-case letters, digits and "-" (at most 63)`);
  }
  if (!DNS_1123_SUBDOMAIN.test(runtime.spec.shoot.secretBindingName)) {
    throw new FieldError(
      'spec.shoot.secretBindingName',
      `"${runtime.spec.shoot.secretBindingName}" cannot name a binding in Gardener; use lower-case letters, digits, "-" and "."`,
    );
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
