// The objects KIM puts inside every Runtime's cluster, the SKR (docs/skr.md), rendered for the landscape repo's
// `shoots/<shoot>/skr/`: the kyma-system Namespace, kyma-provisioning-info, the OpenIDConnect resources, the
// administrators' ClusterRoleBindings, in the order KIM configures them. Pure: the Runtime, its rendered Shoot and
// the landscape's SKR default OIDC in; the applier applies them once the Shoot is reconciled.
import { KYMA_SYSTEM_NAMESPACE } from '../../../model/contract.js';
import type { OidcProviderConfig } from '../../../model/converter-config.js';
import type { KubeObject } from '../../../model/kube-object.js';
import type { Runtime } from '../../../model/runtime.js';
import type { Shoot } from '../../../model/shoot.js';
import { administratorBindings } from './administrators.js';
import { openIdConnects } from './openid-connect.js';
import { provisioningInfoConfigMap } from './provisioning-info.js';
import { validateSkrFields } from './shape.js';

export interface SkrInput {
  runtime: Runtime;
  /** The Shoot as rendered: KIM reads the live one, which the applier makes equal to it. */
  shoot: Shoot;
  /** The landscape's skrDefaultOidc (KIM's cluster.defaultSharedIASTenant). */
  defaultOidc?: OidcProviderConfig;
}

/** Throws FieldError when the Runtime asks for something the SKR cannot hold (convertRuntime reports it). */
export function skrObjects({ runtime, shoot, defaultOidc }: SkrInput): KubeObject[] {
  validateSkrFields(runtime);
  return [
    kymaSystemNamespace(),
    provisioningInfoConfigMap(runtime, shoot),
    ...openIdConnects(runtime, shoot, defaultOidc),
    ...administratorBindings(runtime),
  ];
}

/** KIM creates it bare: no labels, nothing else (runtime_fsm_create_kyma_namespace.go). */
function kymaSystemNamespace(): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KYMA_SYSTEM_NAMESPACE } };
}
