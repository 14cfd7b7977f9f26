// What a Runtime says that only its cluster (the SKR) holds, read back for `kimops import --skr`: the
// administrators from KIM's cluster-admin ClusterRoleBindings (or the Provisioner's, which KIM's runtime-migrator
// read), the additional OIDC providers from KIM's OpenIDConnect objects `kyma-oidc-<i>`. The inverse of
// generator/convert/skr/ (docs/skr.md). Pure.
import { LABEL_OIDC_MANAGED_BY, LABEL_RECONCILER_MANAGED_BY, MANAGED_BY_KIM } from '../model/contract.js';
import { asJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import type { OidcConfig } from '../model/runtime.js';

/** The label selectors of the administrators' bindings: KIM's, and the Provisioner's (reconciler's) before it. */
export const ADMINISTRATOR_BINDING_SELECTORS = [
  `${LABEL_RECONCILER_MANAGED_BY}=${MANAGED_BY_KIM}`,
  `${LABEL_RECONCILER_MANAGED_BY}=reconciler,app=kyma`,
] as const;
export const OIDC_SELECTOR = `${LABEL_OIDC_MANAGED_BY}=${MANAGED_BY_KIM}`;

/** The users bound to cluster-admin by the bindings, each once, sorted (KIM's order of creation is not kept). */
export function administratorsOf(bindings: readonly KubeObject[]): string[] {
  const users = new Set<string>();
  for (const binding of bindings) {
    const roleRef = asJsonObject(binding.roleRef);
    if (roleRef.kind !== 'ClusterRole' || roleRef.name !== 'cluster-admin') continue;
    for (const subject of Array.isArray(binding.subjects) ? binding.subjects : []) {
      const { kind, name } = asJsonObject(subject);
      if (kind === 'User' && typeof name === 'string' && name !== '') users.add(name);
    }
  }
  return [...users].sort();
}

/** KIM's OpenIDConnects `kyma-oidc-<i>` as the Runtime's list, in the order of `i`. */
export function additionalOidcOf(openIdConnects: readonly KubeObject[]): OidcConfig[] {
  return openIdConnects
    .map((object) => ({ object, index: /^kyma-oidc-(\d+)$/.exec(object.metadata.name)?.[1] }))
    .filter((entry): entry is { object: KubeObject; index: string } => entry.index !== undefined)
    .sort((a, b) => Number(a.index) - Number(b.index))
    .map(({ object }) => oidcConfigOf(asJsonObject(object.spec)));
}

function oidcConfigOf(spec: Record<string, unknown>): OidcConfig {
  const text = (key: string) => (typeof spec[key] === 'string' ? { [key]: spec[key] } : {});
  const algs = spec.supportedSigningAlgs;
  const claims = spec.requiredClaims;
  return {
    // KIM leaves an empty clientID out of the object; the Runtime's entry needs one to be used at all.
    clientID: typeof spec.clientID === 'string' ? spec.clientID : '',
    ...text('groupsClaim'),
    ...text('groupsPrefix'),
    issuerURL: typeof spec.issuerURL === 'string' ? spec.issuerURL : '',
    ...(Array.isArray(algs) && algs.length > 0 && { signingAlgs: algs.map(String) }),
    ...text('usernameClaim'),
    ...text('usernamePrefix'),
    ...(claims !== null &&
      typeof claims === 'object' &&
      Object.keys(claims).length > 0 && { requiredClaims: { ...(claims as Record<string, string>) } }),
  };
}
