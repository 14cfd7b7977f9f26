// What names a rollout's branch (`kimops/<landscape>-rollout/<name>`): the settings that cause it. The branch names
// themselves are the contract's (model/contract.ts `branchOf`, `rolloutBranchOf`, `bootstrapBranchOf`): a pass finds
// its open PRs again by them, and `kimops status` reads them too.
import { createHash } from 'node:crypto';
import type { ConversionSettings } from '../model/landscape.js';

/** Names a rollout after the settings that cause it, so a further config change starts a new rollout. */
export function rolloutName(settings: ConversionSettings): string {
  return `landscape-${createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 8)}`;
}
