// The branches of kimops's pull requests on the landscape repo. They are how a pass finds its open PRs again
// (nothing else is kept between passes), and their prefixes are how it finds the stale ones. The names themselves are
// the contract's (model/contract.ts: `kimops status` reads them too); what names a rollout is the generator's.
import { createHash } from 'node:crypto';
import type { ConversionSettings } from '../model/landscape.js';

export { bootstrapBranchOf, branchOf, rolloutBranchOf } from '../model/contract.js';

/** Names a rollout after the settings that cause it, so a further config change starts a new rollout. */
export function rolloutName(settings: ConversionSettings): string {
  return `landscape-${createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 8)}`;
}
