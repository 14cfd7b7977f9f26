// Who leads each Runtime of a pass (rules/leader.ts), decided once per pass: the renders mark the Shoots KIM leads
// (`kimops.kyma-project.io/leader: kim` in main's shoot.yaml), the plan classes their changes `shadow` or
// `cut-over`, and nothing of the pass is written outside the landscape repo for them (no pipeline annotation, no
// AuditLog reserved or claimed, no force-patch request settled): KIM does that for the Runtimes it leads.
// docs/adr/0011-who-leads-a-runtime.md. Pure.
import { ConversionError } from '../model/errors.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { runtimeLeader, withLeader, type Leader } from '../rules/leader.js';
import type { Manifest } from '../rules/landscape-layout.js';
import type { RenderFailure, RuntimeInput } from './render-runtimes.js';

/** Who leads the Runtimes of a pass: a value (plans are compared and cloned in tests), read with `leaderOf`. */
export interface RuntimeLeaders {
  /** landscape.yaml's defaultLeader, for Runtimes without the label. */
  defaultLeader: Leader;
  /** Runtimes whose label kimops cannot read, as the Runtime's error line; their Shoots get nothing this pass. */
  problems: RenderFailure[];
}

/** The leaders of a pass's Runtimes under the landscape's default (absent: kimops, as before the marker). */
export function runtimeLeaders(runtimes: readonly RuntimeInput[], defaultLeader: Leader = 'kimops'): RuntimeLeaders {
  const problems: RenderFailure[] = [];
  for (const { source, runtime } of runtimes) {
    const { problem } = runtimeLeader(runtime, { defaultLeader });
    if (!problem) continue;
    const ref = runtimeRef(runtime);
    const error = new ConversionError(ref, problem.field, problem.detail);
    problems.push({ source, runtime: ref, field: problem.field, message: error.message });
  }
  return { defaultLeader, problems };
}

/** The Runtime's leader; one whose label kimops cannot read is KIM's (the safe side). Absent leaders: kimops. */
export function leaderOf(leaders: RuntimeLeaders | undefined, runtime: Pick<Runtime, 'metadata'>): Leader {
  return leaders ? runtimeLeader(runtime, leaders).leader : 'kimops';
}

/** A render's manifests (the Shoot last) with the Shoot marked for its leader, as main holds it. */
export function markedForLeader(manifests: readonly Manifest[], leader: Leader): Manifest[] {
  if (leader === 'kimops') return [...manifests];
  const last = manifests.at(-1) as Manifest;
  return [...manifests.slice(0, -1), { path: last.path, object: withLeader(last.object as Shoot, leader) }];
}
