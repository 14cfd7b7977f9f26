// JSON Schema of the landscape file (landscapes/<name>/landscape.yaml, type `Landscape` in
// landscape.ts). Strict on purpose: a typo in a landscape silently changes every Shoot of the
// landscape, so unknown keys are errors everywhere except in the free maps (feature gates,
// runtime config, tenants, maintenance windows, tolerations). Checks needing more than a pattern
// (ACL list when the ACL is on, Go duration range, name = folder) live in landscape-parse.ts.
import { isIP } from 'node:net';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { LANDSCAPE_API_VERSION } from './landscape.js';
import { PROVIDER_TYPES } from './runtime.js';

/** The Runtime's `spec.shoot.provider.type` values (KIM's enum); the keys of the tenant map. */

/** Patterns for what a regular expression can check; each has a hint for error messages below. */
export const PATTERNS = {
  /** Kubernetes release, as Gardener's CloudProfile lists them. */
  kubernetesVersion: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
  /** Dotted numeric image version (gardenlinux 1877.4.0). */
  imageVersion: '^[0-9]+(\\.[0-9]+){1,3}$',
  /** Go time.ParseDuration without sign: 720h, 15m, 1h30m, 1.5h. */
  duration: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h))+$',
  /** Gardener maintenance time: HHMMSS followed by a UTC offset (+HHMM). */
  maintenanceTime: '^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-](0[0-9]|1[0-4])[0-5][0-9]$',
  /** RFC 1123 label: names of projects, landscapes, images, cloud profiles. */
  dnsLabel: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  /** RFC 1123 subdomain: names of Secrets and ConfigMaps, DNS domains. */
  dnsSubdomain: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  /** Cloud regions as KEB and the providers spell them (eu-central-1, westeurope, us-west16). */
  region: '^[a-z0-9]+(-[a-z0-9]+)*$',
  httpsUrl: '^https://[^\\s/?#]+(/\\S*)?$',
} as const;

/** What each pattern or format means, phrased to follow "must be". */
const HINTS: Record<string, string> = {
  [PATTERNS.kubernetesVersion]: 'a Kubernetes version like "1.33.3"',
  [PATTERNS.imageVersion]: 'an image version like "1877.4.0"',
  [PATTERNS.duration]: 'a duration like "720h", "15m" or "1h30m"',
  [PATTERNS.maintenanceTime]: 'a time like "220000+0000" (HHMMSS and UTC offset, as Gardener writes it)',
  [PATTERNS.dnsLabel]: 'a DNS label: lower-case letters, digits and "-", starting and ending with a letter or digit',
  [PATTERNS.dnsSubdomain]: 'a DNS name: lower-case letters, digits, "-" and ".", like "aws-route53-secret-dev"',
  [PATTERNS.region]: 'a region name like "eu-central-1" or "westeurope"',
  [PATTERNS.httpsUrl]: 'an https URL like "https://auditlog.example.com:8081"',
  cidr: 'a CIDR like "192.0.2.0/24" (a single address is "203.0.113.7/32")',
  uuid: 'a UUID like "79c64792-9c1e-4c1b-9941-ef7560dd3eae"',
};

/** The "must be …" phrase for a pattern or format error, if the schema has one. */
export function hintFor(error: ErrorObject): string | undefined {
  if (error.keyword === 'pattern') return HINTS[String(error.params['pattern'])];
  if (error.keyword === 'format') return HINTS[String(error.params['format'])];
  return undefined;
}

/** `a.b.c.d/n` or IPv6 `x::y/n`; Go's net.ParseCIDR (which Gardener's ACL extension uses) accepts both. */
export function isCidr(text: string): boolean {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return false;
  const version = isIP(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  return version !== 0 && /^(0|[1-9][0-9]{0,2})$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const str = (pattern: string, description?: string) => ({
  type: 'string',
  pattern,
  ...(description && { description }),
});
const bool = (description: string) => ({ type: 'boolean', description });
const boolMap = (description: string) => ({ type: 'object', description, additionalProperties: { type: 'boolean' } });

const OIDC = {
  type: 'object',
  additionalProperties: false,
  required: ['clientID', 'issuerURL'],
  properties: {
    clientID: { type: 'string', minLength: 1 },
    groupsClaim: { type: 'string' },
    groupsPrefix: { type: 'string' },
    issuerURL: str(PATTERNS.httpsUrl, 'OIDC issuer; Kubernetes accepts https only'),
    signingAlgs: {
      type: 'array',
      minItems: 1,
      items: { enum: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] },
    },
    usernameClaim: { type: 'string' },
    usernamePrefix: { type: 'string' },
  },
} as const;

const TENANT = {
  type: 'object',
  additionalProperties: false,
  required: ['tenantID', 'serviceURL', 'secretName'],
  properties: {
    tenantID: { type: 'string', format: 'uuid' },
    serviceURL: str(PATTERNS.httpsUrl),
    secretName: { ...str(PATTERNS.dnsSubdomain, 'garden Secret with the audit-log credentials'), maxLength: 253 },
  },
} as const;

const WINDOW = {
  type: 'object',
  additionalProperties: false,
  required: ['begin', 'end'],
  properties: { begin: str(PATTERNS.maintenanceTime), end: str(PATTERNS.maintenanceTime) },
} as const;

const TOLERATION = {
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  properties: { key: { type: 'string', minLength: 1 }, value: { type: 'string' } },
} as const;

const regionKeys = { pattern: PATTERNS.region, description: 'a region name' };

export const LANDSCAPE_SCHEMA = {
  $id: 'https://kimops.kyma-project.io/schemas/landscape.json',
  title: 'kimops landscape',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'name', 'gardener', 'features', 'kubernetes', 'machineImage', 'auditLog'],
  properties: {
    apiVersion: { const: LANDSCAPE_API_VERSION },
    kind: { const: 'Landscape' },
    name: { ...str(PATTERNS.dnsLabel, 'the landscape folder name: dev, stage, prod, …'), maxLength: 63 },
    example: bool('the values are illustrative, not the production truth'),
    defaultLeader: {
      enum: ['kimops', 'kim'],
      description:
        'who leads a Runtime without the kimops.kyma-project.io/leader label; leave it out for kimops, set kim while taking a landscape over from KIM',
    },
    gardener: {
      type: 'object',
      additionalProperties: false,
      required: ['project'],
      properties: {
        // Gardener refuses project names longer than 10 characters.
        project: { ...str(PATTERNS.dnsLabel, 'Gardener project; Shoots live in garden-<project>'), maxLength: 10 },
      },
    },
    features: {
      type: 'object',
      additionalProperties: false,
      required: [
        'networkRestriction',
        'apiServerAcl',
        'auditLogMandatory',
        'credentialsBinding',
        'dualStack',
        'awsIMDSv2',
      ],
      properties: {
        networkRestriction: bool('KIM -network-restriction-enabled (KIM default true)'),
        apiServerAcl: bool('KIM -api-server-acl-enabled (KIM default false)'),
        auditLogMandatory: bool('KIM -audit-log-mandatory (KIM default true)'),
        credentialsBinding: bool('converter.gardener.enableCredentialBinding'),
        dualStack: bool('converter.networking.enableDualStackIP'),
        awsIMDSv2: bool('converter.provider.aws.enableIMDSv2'),
        dedicatedAuditLogging: bool(
          "KIM -dedicated-audit-logging-enabled (KIM default false): reserve and claim KALM's AuditLogs for Runtimes with auditLogAccessEnabled",
        ),
      },
    },
    kubernetes: {
      type: 'object',
      additionalProperties: false,
      required: ['defaultVersion', 'autoUpdate'],
      properties: {
        defaultVersion: str(PATTERNS.kubernetesVersion, 'Kubernetes version for Runtimes that name none'),
        autoUpdate: {
          type: 'object',
          additionalProperties: false,
          required: ['kubernetesVersion', 'machineImageVersion'],
          properties: {
            kubernetesVersion: bool('maintenance.autoUpdate.kubernetesVersion'),
            machineImageVersion: bool('maintenance.autoUpdate.machineImageVersion'),
          },
        },
        defaultOperatorOidc: OIDC,
        maxTokenExpiration: str(PATTERNS.duration, 'service-account token lifetime; clamped to 720h–2160h'),
        kubeApiServer: {
          type: 'object',
          additionalProperties: false,
          properties: {
            featureGates: boolMap('kube-apiserver feature gates'),
            runtimeConfig: boolMap('kube-apiserver runtime config'),
          },
        },
        kubelet: {
          type: 'object',
          additionalProperties: false,
          properties: { featureGates: boolMap('kubelet feature gates') },
        },
      },
    },
    machineImage: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'version'],
      properties: {
        name: str(PATTERNS.dnsLabel, 'e.g. gardenlinux'),
        version: str(PATTERNS.imageVersion, 'e.g. 1877.4.0'),
      },
    },
    dns: {
      type: 'object',
      additionalProperties: false,
      required: ['secretName', 'domainPrefix', 'providerType'],
      properties: {
        secretName: { ...str(PATTERNS.dnsSubdomain, 'garden Secret of the DNS provider'), maxLength: 253 },
        domainPrefix: { ...str(PATTERNS.dnsSubdomain, 'Shoot domain is <shoot>.<domainPrefix>'), maxLength: 253 },
        providerType: str(PATTERNS.dnsLabel, 'e.g. aws-route53'),
      },
    },
    workers: {
      type: 'object',
      additionalProperties: false,
      properties: {
        defaultMaxEvictRetries: { type: 'integer', minimum: 0 },
        defaultMachineDrainTimeout: str(PATTERNS.duration),
      },
    },
    gdch: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cloudProfileName: str(PATTERNS.dnsLabel),
        parentReference: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: str(PATTERNS.dnsSubdomain),
            namespace: str(PATTERNS.dnsLabel),
            type: { type: 'string', minLength: 1 },
          },
        },
      },
    },
    auditLog: {
      type: 'object',
      additionalProperties: false,
      required: ['policyConfigMapName', 'tenants'],
      properties: {
        policyConfigMapName: { ...str(PATTERNS.dnsSubdomain, 'ConfigMap with the audit policy'), maxLength: 253 },
        tenants: {
          type: 'object',
          description: '{<provider type>: {<region>: tenant}}',
          propertyNames: {
            enum: PROVIDER_TYPES,
            description: "KEB's plan sap-converged-cloud is provider type openstack",
          },
          additionalProperties: { type: 'object', propertyNames: regionKeys, additionalProperties: TENANT },
        },
      },
    },
    maintenanceWindows: { type: 'object', propertyNames: regionKeys, additionalProperties: WINDOW },
    apiServerAcl: {
      type: 'object',
      additionalProperties: false,
      required: ['operatorCIDRs', 'kcpIP'],
      properties: {
        operatorCIDRs: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', format: 'cidr' } },
        kcpIP: { type: 'string', format: 'cidr', description: 'KCP egress address as a CIDR, e.g. 203.0.113.7/32' },
      },
    },
    tolerations: {
      type: 'object',
      propertyNames: regionKeys,
      additionalProperties: { type: 'array', items: TOLERATION },
    },
    skrDefaultOidc: OIDC,
  },
} as const;

const ajv = new Ajv({ allErrors: true, verbose: true });
addFormats.default(ajv, ['uuid']);
ajv.addFormat('cidr', isCidr);

/** Compiled once at import; `errors` holds the problems of the last call. */
export const validateLandscapeSchema = ajv.compile(LANDSCAPE_SCHEMA);
