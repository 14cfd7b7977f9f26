// The structured-authentication ConfigMap the Shoot's API server reads (companion object,
// applied before the Shoot). Built from the Runtime's OIDC config, or the landscape's operator OIDC.
import { STRUCTURED_AUTH_CONFIG_KEY } from '../../model/contract.js';
import type { OidcProviderConfig } from '../../model/converter-config.js';
import { toGoYaml } from '../../rules/go-yaml.js';
import type { ConfigMap } from '../../model/shoot.js';
import type { ExtenderInput } from './context.js';
import { structuredAuthConfigMapName } from './extenders/kube-apiserver.js';

function jwtAuthenticator(oidc: OidcProviderConfig): Record<string, unknown> {
  return {
    issuer: { url: oidc.issuerURL ?? '', audiences: [oidc.clientID ?? ''] },
    claimMappings: {
      username: { claim: oidc.usernameClaim ?? '', ...(oidc.usernamePrefix && { prefix: oidc.usernamePrefix }) },
      groups: { claim: oidc.groupsClaim ?? '', prefix: oidc.groupsPrefix ?? '' },
    },
  };
}

export function structuredAuthConfigMap({ runtime, ctx }: ExtenderInput, namespace: string): ConfigMap {
  const own = runtime.spec.shoot.kubernetes?.kubeAPIServer?.oidcConfig;
  const oidc = own?.issuerURL && own.clientID ? own : (ctx.config.kubernetes?.defaultOperatorOidc ?? {});
  const authentication = {
    apiVersion: 'apiserver.config.k8s.io/v1beta1',
    kind: 'AuthenticationConfiguration',
    jwt: [jwtAuthenticator(oidc)],
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: structuredAuthConfigMapName(runtime.spec.shoot.name), namespace },
    // KIM's bytes (sigs.k8s.io/yaml): the ConfigMap is written create-or-update, so other bytes would rewrite every
    // one of them when kimops takes a Shoot over from KIM, and again when it hands one back.
    data: { [STRUCTURED_AUTH_CONFIG_KEY]: toGoYaml(authentication) },
  };
}
