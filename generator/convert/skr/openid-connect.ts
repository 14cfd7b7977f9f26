// The OpenIDConnect resources of the SKR (Gardener's oidc-webhook-authenticator serves them), as KIM's
// runtime_fsm_configure_skr.go makes them: only while the Shoot's shoot-oidc-service extension is on; one
// `kyma-oidc-<i>` per entry of spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig; the landscape's default
// when that list is unset or one of its entries lacks a clientID or an issuerURL; none for an empty list.
import { LABEL_OIDC_MANAGED_BY, MANAGED_BY_KIM } from '../../../model/contract.js';
import type { OidcProviderConfig } from '../../../model/converter-config.js';
import { FieldError } from '../../../model/errors.js';
import type { KubeObject } from '../../../model/kube-object.js';
import type { OidcConfig, Runtime } from '../../../model/runtime.js';
import { oidcExtensionEnabled, type Shoot } from '../../../model/shoot.js';

/** A Go pointer that is not nil: YAML's null reads as absent, as it decodes into Go. */
const isSet = (value: string | undefined | null): value is string => value !== undefined && value !== null;

/** KIM's extensions.OidcExtensionType. */
const OIDC_API_VERSION = 'authentication.gardener.cloud/v1alpha1';

export function openIdConnects(
  runtime: Runtime,
  shoot: Shoot,
  defaultOidc: OidcProviderConfig | undefined,
): KubeObject[] {
  if (!oidcExtensionEnabled(shoot)) return [];
  return configsOf(runtime, defaultOidc).map((config, i) => openIdConnect(config, i));
}

/** KIM's additionalOidcEmptyOrUndefined: the Runtime's list, or the default in its place. */
function configsOf(runtime: Runtime, defaultOidc: OidcProviderConfig | undefined): OidcConfig[] {
  const own = runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig;
  // KIM tests for nil pointers: a present empty string is a value.
  if (own?.every((c) => isSet(c.clientID) && isSet(c.issuerURL))) return own;
  if (!defaultOidc)
    throw new FieldError(
      'spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig',
      `${own ? 'has an entry without clientID or issuerURL' : 'is not set'}, and the landscape has no skrDefaultOidc (KIM's cluster.defaultSharedIASTenant) to use instead: set skrDefaultOidc in landscape.yaml, or give the Runtime complete entries`,
    );
  return [asOidcConfig(defaultOidc)];
}

/**
 * KIM's OidcProvider.ToOIDCConfig: every string field set, an absent one as "". groupsPrefix is no field of KIM's
 * default; kimops's landscape may set one, and it is used then.
 */
function asOidcConfig(provider: OidcProviderConfig): OidcConfig {
  return {
    clientID: provider.clientID ?? '',
    groupsClaim: provider.groupsClaim ?? '',
    issuerURL: provider.issuerURL ?? '',
    ...(provider.signingAlgs && { signingAlgs: provider.signingAlgs }),
    usernameClaim: provider.usernameClaim ?? '',
    usernamePrefix: provider.usernamePrefix ?? '',
    ...(provider.groupsPrefix !== undefined && { groupsPrefix: provider.groupsPrefix }),
  };
}

/**
 * KIM's createOpenIDConnectResource, with the omitempty rules of the authenticator's OIDCAuthenticationSpec: an
 * empty clientID, no signing algorithms, no required claims are left out; a set pointer (even to "") is written;
 * `jwks` is a struct and always written. An unset usernameClaim (Go's null) is left out: the API server drops it.
 */
function openIdConnect(config: OidcConfig, index: number): KubeObject {
  const set = (key: string, value: string | undefined) => (isSet(value) ? { [key]: value } : {});
  return {
    apiVersion: OIDC_API_VERSION,
    kind: 'OpenIDConnect',
    metadata: { name: `kyma-oidc-${index}`, labels: { [LABEL_OIDC_MANAGED_BY]: MANAGED_BY_KIM } },
    spec: {
      issuerURL: config.issuerURL ?? '',
      ...(config.clientID && { clientID: config.clientID }),
      ...set('usernameClaim', config.usernameClaim),
      ...set('usernamePrefix', config.usernamePrefix),
      ...set('groupsClaim', config.groupsClaim),
      ...set('groupsPrefix', config.groupsPrefix),
      ...(config.signingAlgs?.length && { supportedSigningAlgs: [...config.signingAlgs] }),
      ...(config.requiredClaims &&
        Object.keys(config.requiredClaims).length > 0 && { requiredClaims: { ...config.requiredClaims } }),
      jwks: { ...(config.jwks && { keys: config.jwks }) },
    },
  };
}
