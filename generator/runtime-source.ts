// Where a generator pass gets its Runtimes, and how what it learned of each (runtime-facts.ts) goes back onto
// them for the backfiller: a folder (adapters/files/runtime-folder.ts) has nowhere to keep it; a KCP
// (adapters/kube/kcp-runtimes.ts) gets the annotation written on each Runtime, a few at a time, and the
// force-patch-reconciliation it answered taken off (force-patch.ts).
import {
  ANNOTATION_FORCE_PATCH,
  FORCE_PATCH_ANNOTATION,
  FORCE_PATCH_PROPOSED_ANNOTATION,
  PIPELINE_ANNOTATION,
} from '../model/contract.js';
import { mapInParallel } from '../model/in-parallel.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { RuntimeInput } from './render-runtimes.js';
import type { FactsWrite } from './runtime-facts.js';
import type { AnnotationWrite } from '../model/kube-result.js';

export interface RuntimeSource {
  /** The Runtimes now, and the ones that could not be read (one line each). */
  read(): Promise<{ inputs: RuntimeInput[]; errors: string[] }>;
  /** Sets one annotation on the Runtime (null removes it); absent where Runtimes have nowhere to keep it. */
  annotate?(runtime: Runtime, name: string, value: string | null): Promise<AnnotationWrite>;
  /**
   * Removes annotations only while each still has the value given (a value written again meanwhile stays, and the
   * write fails); absent where Runtimes are not written.
   */
  removeAnnotations?(runtime: Runtime, expected: Readonly<Record<string, string>>): Promise<AnnotationWrite>;
  /** Calls `listener` on every change (watched sources only). */
  onChange(listener: () => void): void;
  stop(): Promise<void>;
}

/** Runtime annotations written at once: a first pass over a landscape may report on many. */
const REPORT_LANES = 4;

/**
 * Writes what the pass learned onto the Runtimes, and settles the force-patch requests it answered. A KCP that
 * stopped answering gets no more of them, and a Runtime deleted meanwhile has nothing to report to; any other
 * failure is said with its fix. Either way the next pass writes what is left.
 */
export async function reportRuntimeFacts(
  writes: readonly FactsWrite[],
  source: RuntimeSource,
  warn: (line: string) => void,
): Promise<void> {
  const annotate = source.annotate?.bind(source);
  const remove = source.removeAnnotations?.bind(source);
  let unreachable: string | undefined;
  await mapInParallel(writes, REPORT_LANES, async (write) => {
    if (unreachable !== undefined) return;
    const { runtime } = write;
    let what: string;
    let written: AnnotationWrite;
    if ('remove' in write) {
      if (!remove) {
        // A file keeps what its author wrote: only they can take the request off.
        warn(
          `runtime ${runtimeRef(runtime)}: main holds the re-apply ${ANNOTATION_FORCE_PATCH} asked for; a file keeps the annotation, so remove it from the Runtime's file (while it stays, no further re-apply is proposed)`,
        );
        return;
      }
      what = `remove ${ANNOTATION_FORCE_PATCH}`;
      written = await remove(runtime, write.remove);
    } else {
      if (!annotate) return;
      const [name, value] =
        'proposed' in write ? [FORCE_PATCH_PROPOSED_ANNOTATION, write.proposed] : [PIPELINE_ANNOTATION, write.value];
      what = `write ${name}`;
      written = await annotate(runtime, name, value);
    }
    if (!written.ok && written.status === 0) {
      unreachable = written.message;
      return;
    }
    if (written.ok || written.status === 404) return;
    warn(
      `runtime ${runtimeRef(runtime)}: could not ${what} (${consequence(write)}): ${written.message} — ${fixOf(written)}`,
    );
  });
  if (unreachable !== undefined)
    warn(
      `the Runtimes' ${PIPELINE_ANNOTATION} annotations were not all written: ${unreachable}; the next pass writes them`,
    );
}

/** What a failed write leaves for the next pass. */
function consequence(write: FactsWrite): string {
  if ('remove' in write)
    return `the next pass tries again; where this pass merged the re-apply, it proposes one more (${FORCE_PATCH_ANNOTATION} above ${write.counter}), harmless`;
  if ('proposed' in write) return 'the next pass notes it again';
  return "its status misses this pass's facts";
}

function fixOf(written: Extract<AnnotationWrite, { ok: false }>): string {
  if (written.status === 403)
    return 'grant the --kcp-kubeconfig identity patch on runtimes.infrastructuremanager.kyma-project.io';
  return written.fix;
}
