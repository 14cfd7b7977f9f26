// The branches of kimops's pull requests on the landscape repo. They are how a pass finds its open PRs again
// (nothing else is kept between passes), and their prefixes are how it finds the stale ones.
import { createHash } from 'node:crypto';
import { BRANCH_PREFIX } from '../model/contract.js';
import type { ConversionSettings } from '../model/landscape.js';

export function branchOf(landscape: string, shoot: string): string {
  return `${BRANCH_PREFIX}${landscape}/${shoot}`;
}

/** Apart from the Shoots' branches, so no Shoot name can collide with a rollout's. */
export function rolloutBranchOf(landscape: string, name: string): string {
  return `${BRANCH_PREFIX}${landscape}-rollout/${name}`;
}

/**
 * `kimops bootstrap`'s one branch: apart from the Shoots' branches and the rollouts' (a pass never closes its PR as
 * stale), and looked for by every generator pass while main holds no Shoot (generate.ts).
 */
export function bootstrapBranchOf(landscape: string): string {
  return `${BRANCH_PREFIX}${landscape}-bootstrap`;
}

/** Names a rollout after the settings that cause it, so a further config change starts a new rollout. */
export function rolloutName(settings: ConversionSettings): string {
  return `landscape-${createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 8)}`;
}
