// The policy pack as objects a cluster runs (`kimops policies export`): for one landscape, each policy
// that applies to it as the ValidatingAdmissionPolicy its file already is, a binding that enforces it
// in the landscape's project namespace with the action its severity asks for, and the landscape facts
// as the params ConfigMap the bindings point at. Pure: values in, objects out.
import type { Policy, Severity } from './policy-file.js';
import { POLICY_API_VERSION } from './policy-file.js';
import {
  NAMESPACE_NAME_LABEL,
  LABEL_LANDSCAPE,
  gardenNamespaceOf,
  PARAMS_CONFIG_MAP,
  LABEL_APP_MANAGED_BY,
} from '../../model/contract.js';

const BINDING_KIND = 'ValidatingAdmissionPolicyBinding';

/**
 * What a binding does with a failed check: deny stops the request; warn lets it through with a
 * warning to the client and an audit annotation, as kimops shows a warning and does not block.
 */
const VALIDATION_ACTIONS: Record<Severity, readonly ('Deny' | 'Warn' | 'Audit')[]> = {
  deny: ['Deny'],
  warn: ['Warn', 'Audit'],
};

export interface ExportInput {
  /** The landscape's name, matched against each policy's landscapes annotation. */
  landscape: string;
  /** The Gardener project: Shoots live in `garden-<project>`, where the bindings apply. */
  project: string;
  policies: readonly Policy[];
  /** The landscape facts (params.ts landscapeParams). */
  params: Record<string, string>;
  /** Where the bindings apply and the params live; default `garden-<project>`. */
  namespace?: string;
}

export interface ExportedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface PolicyExport {
  /** The params ConfigMap, then the policies, then their bindings: the order to apply them in. */
  objects: ExportedObject[];
  /** Policies left out, with why (another landscape's). */
  skipped: { policy: string; source: string; reason: string }[];
}

/** The cluster objects enforcing `policies` for one landscape. */
export function exportPolicies({
  landscape,
  project,
  policies,
  params,
  namespace = gardenNamespaceOf(project),
}: ExportInput): PolicyExport {
  const included = policies.filter((p) => p.landscapes === '*' || p.landscapes.includes(landscape));
  const skipped = policies
    .filter((p) => !included.includes(p))
    .map((p) => ({
      policy: p.name,
      source: p.source,
      reason: `applies only to landscape${p.landscapes.length === 1 ? '' : 's'} ${[...p.landscapes].join(', ')}`,
    }));
  const labels = { [LABEL_APP_MANAGED_BY]: 'kimops', [LABEL_LANDSCAPE]: landscape };
  const configMap: ExportedObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: PARAMS_CONFIG_MAP, namespace, labels },
    data: { ...params },
  };
  return {
    objects: [
      configMap,
      ...included.map((p) => structuredClone(p.manifest) as ExportedObject),
      ...included.map((p) => binding(p, landscape, namespace, labels)),
    ],
    skipped,
  };
}

/**
 * A policy's binding for one landscape. Named `<policy>.<landscape>`: the policies are cluster-wide
 * and shared, so landscapes served by one garden each bind them in their own namespace.
 */
export function bindingName(policy: string, landscape: string): string {
  return `${policy}.${landscape}`;
}

function binding(policy: Policy, landscape: string, namespace: string, labels: Record<string, string>): ExportedObject {
  return {
    apiVersion: POLICY_API_VERSION,
    kind: BINDING_KIND,
    metadata: { name: bindingName(policy.name, landscape), labels },
    spec: {
      policyName: policy.name,
      validationActions: [...VALIDATION_ACTIONS[policy.severity]],
      // Without its params a policy cannot decide; kimops fails such a policy too (evaluate.ts).
      ...(policy.usesParams && { paramRef: { name: PARAMS_CONFIG_MAP, namespace, parameterNotFoundAction: 'Deny' } }),
      matchResources: { namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: namespace } } },
    },
  };
}

/** One file per object, `<kind>-<name>.yaml` in lower case, for `--out`. */
export function exportFileName(object: ExportedObject): string {
  return `${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
}
