// The extenders in KIM's order (docs/contracts/kim-converter.md §2). The first failure aborts the conversion.
import type { Extender } from './context.js';
import { auditLogPolicy } from './extenders/auditlog.js';
import { createDns, patchDns } from './extenders/dns.js';
import { createExtensions, patchExtensions } from './extenders/extensions.js';
import { gvisorNetRaw } from './extenders/gvisor.js';
import {
  featureGates,
  runtimeConfig,
  serviceAccountTokens,
  structuredAuthentication,
} from './extenders/kube-apiserver.js';
import { annotations, labels } from './extenders/metadata.js';
import { credentialsBinding, networkingFamilies } from './extenders/networking.js';
import { accessRestrictions, cloudProfile, exposureClass, seedSelector, tolerations } from './extenders/placement.js';
import { createProvider, patchProvider } from './extenders/provider.js';
import { patchResources } from './extenders/resources.js';
import { kubernetesVersion, maintenance } from './extenders/versions.js';

/** Run in both modes, first. */
const BASE_EXTENDERS: readonly Extender[] = [
  annotations,
  labels,
  seedSelector,
  structuredAuthentication,
  cloudProfile,
  exposureClass,
  accessRestrictions,
  featureGates,
  runtimeConfig,
];

/** A new Shoot. */
export const CREATE_EXTENDERS: readonly Extender[] = [
  ...BASE_EXTENDERS,
  createProvider,
  gvisorNetRaw,
  tolerations,
  createDns,
  createExtensions,
  kubernetesVersion,
  maintenance,
  auditLogPolicy,
  serviceAccountTokens,
  networkingFamilies,
  credentialsBinding,
];

/**
 * An existing Shoot. Tolerations, token settings and networking families are create-only in
 * Gardener; update mode carries the live values over instead (see convert-runtime.ts).
 */
export const UPDATE_EXTENDERS: readonly Extender[] = [
  ...BASE_EXTENDERS,
  patchProvider,
  gvisorNetRaw,
  patchResources,
  patchExtensions,
  patchDns,
  kubernetesVersion,
  maintenance,
  credentialsBinding,
  auditLogPolicy,
];
