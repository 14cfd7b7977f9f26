// The Gardener Seed fields kimops reads (core.gardener.cloud/v1beta1): only what KIM's seed check before a
// create looks at (docs/contracts/runtime-status.md §1, CreateShoot). kimops never writes Seeds.
import type { ObjectMeta } from './kube-object.js';
import type { SHOOT_API_VERSION } from './shoot.js';

/** Gardener's condition; `status` is True, False, Unknown or Progressing. */
export interface GardenerCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface SeedStatus {
  conditions?: GardenerCondition[];
  /** Unset until a gardenlet has reconciled the Seed once; KIM does not use such a Seed. */
  lastOperation?: { type: string; state: string; progress?: number; description?: string; lastUpdateTime?: string };
  [key: string]: unknown;
}

export interface Seed {
  apiVersion: typeof SHOOT_API_VERSION;
  kind: 'Seed';
  metadata: ObjectMeta;
  spec: {
    provider: { type: string; region: string; [key: string]: unknown };
    settings?: { scheduling?: { visible: boolean }; [key: string]: unknown };
    /** Where the Seed backs up etcd; with it, KIM also wants its BackupBuckets ready. */
    backup?: { [key: string]: unknown };
    [key: string]: unknown;
  };
  status?: SeedStatus;
}
