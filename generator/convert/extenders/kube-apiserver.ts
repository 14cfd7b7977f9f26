// The API server and kubelet settings from the landscape: structured authentication, feature
// gates, runtime config, service-account tokens, audit policy.
import { FieldError } from '../../../model/errors.js';
import { formatGoDuration, parseGoDuration } from '../../../model/go-time.js';
import type { Extender } from '../context.js';

export function structuredAuthConfigMapName(shootName: string): string {
  return `structured-auth-config-${shootName}`;
}

/** Replaces kubeAPIServer wholesale, like KIM: the OIDC settings live in the structured-auth ConfigMap. */
export const structuredAuthentication: Extender = (draft, { runtime }) => {
  draft.spec.kubernetes.kubeAPIServer = {
    structuredAuthentication: { configMapName: structuredAuthConfigMapName(runtime.spec.shoot.name) },
  };
};

export const featureGates: Extender = (draft, { ctx }) => {
  const apiServerGates = ctx.config.kubernetes?.kubeApiServer?.featureGates;
  const kubeletGates = ctx.config.kubernetes?.kubelet?.featureGates;
  if (apiServerGates && Object.keys(apiServerGates).length > 0) {
    draft.spec.kubernetes.kubeAPIServer = {
      ...draft.spec.kubernetes.kubeAPIServer,
      featureGates: { ...apiServerGates },
    };
  }
  // KIM always writes the kubelet block, so `kubelet: {}` is part of parity.
  draft.spec.kubernetes.kubelet =
    kubeletGates && Object.keys(kubeletGates).length > 0 ? { featureGates: { ...kubeletGates } } : {};
};

export const runtimeConfig: Extender = (draft, { ctx }) => {
  const config = ctx.config.kubernetes?.kubeApiServer?.runtimeConfig;
  if (config && Object.keys(config).length > 0) {
    draft.spec.kubernetes.kubeAPIServer = { ...draft.spec.kubernetes.kubeAPIServer, runtimeConfig: { ...config } };
  }
};

/** KIM's bounds for service-account token lifetime: 30 to 90 days. */
const MIN_TOKEN_EXPIRATION = parseGoDuration('720h') as number;
const MAX_TOKEN_EXPIRATION = parseGoDuration('2160h') as number;

export const serviceAccountTokens: Extender = (draft, { ctx }) => {
  const configured = ctx.config.kubernetes?.kubeApiServer?.maxTokenExpiration ?? '';
  let expiration = MIN_TOKEN_EXPIRATION;
  if (configured !== '') {
    const parsed = parseGoDuration(configured);
    if (parsed === undefined) {
      throw new FieldError(
        'converter.kubernetes.kubeApiServer.maxTokenExpiration',
        `"${configured}" is not a duration; write it like "720h"`,
      );
    }
    expiration = Math.min(Math.max(parsed, MIN_TOKEN_EXPIRATION), MAX_TOKEN_EXPIRATION);
  }
  draft.spec.kubernetes.kubeAPIServer = {
    ...draft.spec.kubernetes.kubeAPIServer,
    serviceAccountConfig: { extendTokenExpiration: false, maxTokenExpiration: formatGoDuration(expiration) },
  };
};
