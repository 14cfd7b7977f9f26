// The objects the backfiller reads and writes, typed where it reads a field, and the API types it names them by.
import type { KubeObject } from '../model/kube-object.js';
import { RUNTIME_API_VERSION, type LiveRuntime } from '../model/runtime.js';
import { SHOOT_API_VERSION, type ShootStatus } from '../model/shoot.js';
import {
  GARDENER_CLUSTER_API_VERSION,
  GARDENER_CLUSTER_KIND,
  type GardenerClusterLike,
  type SecretLike,
} from './kubeconfig.js';
import type { StatusShoot } from './status.js';

export type RuntimeObject = KubeObject & LiveRuntime;
export type ShootObject = KubeObject & StatusShoot & { spec?: { dns?: { domain?: string } }; status?: ShootStatus };
export type GardenerClusterObject = KubeObject & GardenerClusterLike;
export type SecretObject = KubeObject & SecretLike;

export const RUNTIME_TYPE = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
export const SHOOT_TYPE = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;
export const GARDENER_CLUSTER_TYPE = { apiVersion: GARDENER_CLUSTER_API_VERSION, kind: GARDENER_CLUSTER_KIND } as const;
export const SECRET_TYPE = { apiVersion: 'v1', kind: 'Secret' } as const;
