// KIM's `force-patch-reconciliation` through Git (docs/contracts/runtime-status.md §3): KIM applies the converted
// Shoot again although nothing changed, then takes the annotation off the Runtime. kimops re-applies through main,
// visibly, as Flux's `requestedAt` does: the forced Runtime's Shoot gets a counter annotation raised by one
// (FORCE_PATCH_ANNOTATION, main's value + 1), a change of the Runtime's own; once main holds it, the Shoot's folder
// has changed and the applier applies the whole Shoot with force, and the generator takes the annotation off the
// Runtime. Every other render carries main's counter, so it never flaps away. While the PR waits (for a review, for
// CI), the Runtime notes the counter it proposes (FORCE_PATCH_PROPOSED_ANNOTATION): main raised by a human's merge
// then answers the request instead of asking for one more. suspend-patch-reconciliation wins: nothing is rendered.
// The rules are pure; `withForcePatchCounters` applies them to a gathered pass, awaiting only main's snapshot.
import {
  ANNOTATION_FORCE_PATCH,
  ANNOTATION_SUSPEND_PATCH,
  FORCE_PATCH_ANNOTATION,
  FORCE_PATCH_PROPOSED_ANNOTATION,
  SHOOT_FILE,
  SHOOTS_FOLDER,
} from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { filesOf, type Manifest } from '../rules/landscape-layout.js';
import type { MainFolder, MainSnapshot } from './main-snapshot.js';
import type { PassInput } from './plan-input.js';
import type { BranchOutcome } from './propose-branch.js';
import type { RenderedChange } from './render-changes.js';
import { leaderOf } from './leaders.js';
import { annotated } from './render-selection.js';

/** The Runtime asks for a re-apply: forced, and not suspended (suspend wins, as in KIM's shouldPatchShoot). */
export function forcePatchRequested(runtime: Runtime): boolean {
  return annotated(runtime, ANNOTATION_FORCE_PATCH) && !annotated(runtime, ANNOTATION_SUSPEND_PATCH);
}

/** main's counter on its Shoot; 0 for none (or a value that is no counter: the next request writes a good one). */
export function counterOf(shoot: Shoot | undefined): number {
  return counterIn(shoot?.metadata.annotations?.[FORCE_PATCH_ANNOTATION]) ?? 0;
}

/** The counter a PR not yet merged proposes for the Runtime's request, as the Runtime notes it. */
function proposedOf(runtime: Runtime): number | undefined {
  return counterIn(runtime.metadata.annotations?.[FORCE_PATCH_PROPOSED_ANNOTATION]);
}

function counterIn(text: string | undefined): number | undefined {
  return text !== undefined && /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : undefined;
}

export interface ForcePatchCounter {
  /** The counter the Runtime's Shoot carries in this render. */
  counter: number;
  /** A forced Runtime whose request main answers already (a PR merged after the pass that proposed it). */
  answered: boolean;
}

/**
 * The counter for a Runtime's render, given main's: raised by one for a request (the same while its PR is open,
 * main being unchanged), main's own for a request main has answered, and main's carried otherwise. `staysOn`: the
 * Runtime's source cannot take the annotation off (a file): then any re-apply main holds answers it, or every pass
 * would re-apply the Shoot again.
 */
export function forcePatchCounter(runtime: Runtime, onMain: number, staysOn = false): ForcePatchCounter {
  if (!forcePatchRequested(runtime)) return { counter: onMain, answered: false };
  const proposed = staysOn ? 1 : proposedOf(runtime);
  if (proposed !== undefined && onMain >= proposed) return { counter: onMain, answered: true };
  return { counter: onMain + 1, answered: false };
}

/** The Shoot with the counter set; without the annotation for 0 (a Shoot never forced). */
export function withCounter(shoot: Shoot, counter: number): Shoot {
  const annotations = Object.entries(shoot.metadata.annotations ?? {}).filter(
    ([key]) => key !== FORCE_PATCH_ANNOTATION,
  );
  if (counter > 0) annotations.push([FORCE_PATCH_ANNOTATION, String(counter)]);
  return { ...shoot, metadata: { ...shoot.metadata, annotations: Object.fromEntries(annotations) } };
}

/** A forced Runtime's request as a pass found it. */
export interface ForcePatchRequest {
  runtime: Runtime;
  shoot: string;
  /** The counter its render proposes; or main's, when `answered`. */
  counter: number;
  answered: boolean;
}

/** Where the renders a pass gathered are read from: main's Shoots and folders. */
type MainView = Pick<MainSnapshot, 'shoot' | 'folder' | 'holds'>;

/**
 * The gathered pass with every render carrying its counter (forcePatchCounter): a render that differed from main
 * only by main's counter is main's; a forced Runtime whose render main holds becomes a change of main's folder with
 * the counter raised (its folder read for the plan). The forced Runtimes' requests come back for the outcome.
 */
export async function withForcePatchCounters(
  input: PassInput,
  main: MainView,
  staysOn = false,
): Promise<{ input: PassInput; requests: ForcePatchRequest[] }> {
  const requests: ForcePatchRequest[] = [];
  const changed: RenderedChange[] = [];
  const inMain: PassInput['renders']['inMain'] = [];
  const read = new Map(input.main.read);
  // KIM answers the requests of the Runtimes it leads (and takes the annotation off): main's counter stays.
  const asks = (runtime: Runtime) => forcePatchRequested(runtime) && leaderOf(input.leaders, runtime) !== 'kim';
  for (const change of input.renders.changed) {
    const shoot = change.rendered.shootName;
    const { runtime } = change.entry;
    const onMain = counterOf(await main.shoot(shoot));
    const decided = asks(runtime) ? forcePatchCounter(runtime, onMain, staysOn) : { counter: onMain, answered: false };
    if (asks(runtime)) requests.push({ runtime, shoot, ...decided });
    const counted = withCounterOnChange(change, decided.counter);
    if (main.holds(shoot, counted.files)) inMain.push({ runtime: change.rendered.runtime, shoot });
    else changed.push(counted);
  }
  const rendered = new Map(input.selection.toRender.map((entry) => [runtimeRef(entry.runtime), entry]));
  for (const held of input.renders.inMain) {
    const entry = rendered.get(held.runtime);
    if (!entry || !asks(entry.runtime)) {
      inMain.push(held);
      continue;
    }
    const folder = await main.folder(held.shoot);
    const decided = forcePatchCounter(entry.runtime, counterOf(folder.shoot), staysOn);
    requests.push({ runtime: entry.runtime, shoot: held.shoot, ...decided });
    if (decided.answered || !folder.shoot) {
      inMain.push(held);
      continue;
    }
    // main holds the render: the re-apply is main's folder with the counter raised.
    changed.push(mainFolderChange(entry, held, folder as MainFolder & { shoot: Shoot }, decided.counter));
    read.set(held.shoot, folder);
  }
  changed.sort((a, b) =>
    a.rendered.shootName < b.rendered.shootName ? -1 : a.rendered.shootName > b.rendered.shootName ? 1 : 0,
  );
  return {
    input: { ...input, renders: { ...input.renders, changed, inMain }, main: { ...input.main, read } },
    requests,
  };
}

/** A render's manifests (the Shoot last) with the Shoot carrying `counter`. */
function withCounterOn(manifests: readonly Manifest[], counter: number): Manifest[] {
  const last = manifests.at(-1) as Manifest;
  return [...manifests.slice(0, -1), { path: last.path, object: withCounter(last.object as Shoot, counter) }];
}

/** A render of a Runtime not forced against main's Shoot, carrying main's counter as every render does. */
export function withMainCounter(manifests: readonly Manifest[], main: Shoot): Manifest[] {
  return withCounterOn(manifests, counterOf(main));
}

/** The change with its Shoot carrying `counter`, and its shoot.yaml written again. */
function withCounterOnChange(change: RenderedChange, counter: number): RenderedChange {
  if (counterOf(change.rendered.manifests.at(-1)?.object as Shoot) === counter) return change;
  const manifests = withCounterOn(change.rendered.manifests, counter);
  const files = new Map(change.files);
  for (const { path, content } of filesOf(manifests.slice(-1))) files.set(path, content);
  return { ...change, rendered: { ...change.rendered, manifests }, files };
}

/** main's folder as the change of a forced Runtime whose render main holds: only the counter differs. */
function mainFolderChange(
  entry: RenderedChange['entry'],
  held: { runtime: string; shoot: string },
  folder: MainFolder & { shoot: Shoot },
  counter: number,
): RenderedChange {
  const shootPath = `${SHOOTS_FOLDER}/${held.shoot}/${SHOOT_FILE}`;
  const companions = [...folder.files]
    .filter(([path]) => path !== shootPath)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, text]) => ({ path, object: parseYaml11(text, path) as KubeObject }));
  const change: RenderedChange = {
    entry,
    rendered: {
      runtime: held.runtime,
      source: entry.source,
      shootName: held.shoot,
      mode: 'update',
      manifests: [...companions, { path: shootPath, object: folder.shoot }],
    },
    files: new Map(folder.files),
  };
  return withCounterOnChange(change, counter);
}

/** What became of a forced Runtime's request in the pass: `done` once main holds its counter. */
export interface ForcePatchOutcome {
  runtime: Runtime;
  shoot: string;
  counter: number;
  done: boolean;
}

/**
 * The requests' outcomes once the pass proposed: done when main answered it before, or the pass merged its PR;
 * open while its PR waits. A request whose PR the pass could not propose (a forge's refusal, main's Shoot broken)
 * has none: the next pass tries again.
 */
export function forcePatchOutcomes(
  requests: readonly ForcePatchRequest[],
  proposed: readonly (Pick<BranchOutcome, 'action'> & { shoot: string; rollout?: boolean })[],
): ForcePatchOutcome[] {
  return requests.flatMap(({ runtime, shoot, counter, answered }) => {
    if (answered) return [{ runtime, shoot, counter, done: true }];
    const outcome = proposed.find((p) => p.shoot === shoot && !p.rollout);
    return outcome ? [{ runtime, shoot, counter, done: outcome.action === 'auto-merge' }] : [];
  });
}

/** A write onto a Runtime that settles its request: the two annotations removed, or the proposed counter noted. */
export type ForcePatchWrite =
  | {
      runtime: Runtime;
      /** Removed only while each still has this value: one changed since the pass read it stays. */
      remove: Record<string, string>;
      /** The counter main holds for it, for the log. */
      counter: number;
    }
  | { runtime: Runtime; proposed: string | null };

/**
 * The writes that settle the requests: a done one loses force-patch-reconciliation (and the note), as KIM takes it
 * off after its patch; an open one notes the counter its PR proposes; a note left on a Runtime no longer forced goes.
 */
export function forcePatchWrites(
  runtimes: readonly Runtime[],
  outcomes: readonly ForcePatchOutcome[],
): ForcePatchWrite[] {
  const byRef = new Map(outcomes.map((outcome) => [runtimeRef(outcome.runtime), outcome]));
  return runtimes.flatMap((runtime): ForcePatchWrite[] => {
    const outcome = byRef.get(runtimeRef(runtime));
    const note = runtime.metadata.annotations?.[FORCE_PATCH_PROPOSED_ANNOTATION];
    if (outcome?.done)
      return [
        {
          runtime,
          remove: {
            [ANNOTATION_FORCE_PATCH]: 'true',
            ...(note !== undefined && { [FORCE_PATCH_PROPOSED_ANNOTATION]: note }),
          },
          counter: outcome.counter,
        },
      ];
    if (outcome) return note === String(outcome.counter) ? [] : [{ runtime, proposed: String(outcome.counter) }];
    return note !== undefined && !annotated(runtime, ANNOTATION_FORCE_PATCH) ? [{ runtime, proposed: null }] : [];
  });
}
