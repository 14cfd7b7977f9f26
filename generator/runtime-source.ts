// Where a generator pass gets its Runtimes, and how what it learned of each (runtime-facts.ts) goes back onto
// them for the backfiller: a folder (adapters/files/runtime-folder.ts) has nowhere to keep it; a KCP
// (adapters/kube/kcp-runtimes.ts) gets the annotation written on each Runtime, a few at a time.
import { PIPELINE_ANNOTATION } from '../model/contract.js';
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
  /** Calls `listener` on every change (watched sources only). */
  onChange(listener: () => void): void;
  stop(): Promise<void>;
}

/** Runtime annotations written at once: a first pass over a landscape may report on many. */
const REPORT_LANES = 4;

/**
 * Writes what the pass learned onto the Runtimes. A KCP that stopped answering gets no more of them, and a
 * Runtime deleted meanwhile has nothing to report to; any other failure is said with its fix. Either way the
 * next pass writes what is left.
 */
export async function reportRuntimeFacts(
  writes: readonly FactsWrite[],
  source: RuntimeSource,
  warn: (line: string) => void,
): Promise<void> {
  const annotate = source.annotate?.bind(source);
  if (!annotate) return;
  let unreachable: string | undefined;
  await mapInParallel(writes, REPORT_LANES, async ({ runtime, value }) => {
    if (unreachable !== undefined) return;
    const written = await annotate(runtime, PIPELINE_ANNOTATION, value);
    if (!written.ok && written.status === 0) {
      unreachable = written.message;
      return;
    }
    if (!written.ok && written.status !== 404) {
      warn(
        `runtime ${runtimeRef(runtime)}: could not write ${PIPELINE_ANNOTATION} (its status misses this pass's facts): ${written.message} — ${written.status === 403 ? 'grant the --kcp-kubeconfig identity patch on runtimes.infrastructuremanager.kyma-project.io' : written.fix}`,
      );
    }
  });
  if (unreachable !== undefined)
    warn(
      `the Runtimes' ${PIPELINE_ANNOTATION} annotations were not all written: ${unreachable}; the next pass writes them`,
    );
}
