import { describe, expect, it } from 'vitest';
import type { Runtime } from '../model/runtime.js';
import type { FactsWrite } from './runtime-facts.js';
import { reportRuntimeFacts, type RuntimeSource } from './runtime-source.js';
import type { AnnotationWrite } from '../model/kube-result.js';

const runtime = (name: string) => ({ metadata: { name, namespace: 'kcp-system' } }) as Runtime;
const writes = (...names: string[]): FactsWrite[] =>
  names.map((name) => ({ runtime: runtime(name), value: `{"n":"${name}"}` }));

/** A KCP answering each Runtime's write as `answers` says (done when not named), and what it was asked. */
function kcp(answers: Record<string, AnnotationWrite> = {}) {
  const asked: [string, string, string | null][] = [];
  const removed: [string, Readonly<Record<string, string>>][] = [];
  const source: RuntimeSource = {
    read: async () => ({ inputs: [], errors: [] }),
    annotate: async (r, name, value) => {
      asked.push([r.metadata.name, name, value]);
      return answers[r.metadata.name] ?? { ok: true };
    },
    removeAnnotations: async (r, expected) => {
      removed.push([r.metadata.name, expected]);
      return answers[r.metadata.name] ?? { ok: true };
    },
    onChange: () => {},
    stop: async () => {},
  };
  return { source, asked, removed };
}

const failure = (status: number): AnnotationWrite => ({
  ok: false,
  status,
  message: status === 0 ? 'connect ECONNREFUSED 127.0.0.1:9' : `HTTP ${status}`,
  fix: `the fix for ${status}`,
});

describe('reportRuntimeFacts', () => {
  it("writes each Runtime's pipeline annotation", async () => {
    const { source, asked } = kcp();
    const warnings: string[] = [];
    await reportRuntimeFacts(writes('a', 'b'), source, (line) => warnings.push(line));
    expect(asked).toEqual([
      ['a', 'kimops.kyma-project.io/pipeline', '{"n":"a"}'],
      ['b', 'kimops.kyma-project.io/pipeline', '{"n":"b"}'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('writes nothing where Runtimes have nowhere to keep it', async () => {
    const warnings: string[] = [];
    const folder: RuntimeSource = {
      read: async () => ({ inputs: [], errors: [] }),
      onChange: () => {},
      stop: async () => {},
    };
    await reportRuntimeFacts(writes('a'), folder, (line) => warnings.push(line));
    expect(warnings).toEqual([]);
  });

  it('skips a Runtime deleted meanwhile, and names the fix for any other refusal', async () => {
    const { source } = kcp({ a: failure(404), b: failure(403), c: failure(500) });
    const warnings: string[] = [];
    await reportRuntimeFacts(writes('a', 'b', 'c'), source, (line) => warnings.push(line));
    expect(warnings).toEqual([
      "runtime kcp-system/b: could not write kimops.kyma-project.io/pipeline (its status misses this pass's facts): HTTP 403 — grant the --kcp-kubeconfig identity patch on runtimes.infrastructuremanager.kyma-project.io",
      "runtime kcp-system/c: could not write kimops.kyma-project.io/pipeline (its status misses this pass's facts): HTTP 500 — the fix for 500",
    ]);
  });

  it('stops writing once the KCP does not answer, and says so once', async () => {
    const { source, asked } = kcp({ a: failure(0) });
    const warnings: string[] = [];
    await reportRuntimeFacts(writes('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), source, (line) => warnings.push(line));
    // The lanes already writing finish; none starts after the failure.
    expect(asked.length).toBeLessThan(8);
    expect(warnings).toEqual([
      "the Runtimes' kimops.kyma-project.io/pipeline annotations were not all written: connect ECONNREFUSED 127.0.0.1:9; the next pass writes them",
    ]);
  });

  it('settles force-patch requests: takes the annotation off a done one while it still says "true", notes an open one', async () => {
    const { source, asked, removed } = kcp({ c: failure(422) });
    const warnings: string[] = [];
    const forced = { 'operator.kyma-project.io/force-patch-reconciliation': 'true' };
    await reportRuntimeFacts(
      [
        { runtime: runtime('a'), remove: forced, counter: 2 },
        { runtime: runtime('b'), proposed: '3' },
        { runtime: runtime('c'), remove: forced, counter: 4 },
      ],
      source,
      (line) => warnings.push(line),
    );
    expect(removed).toEqual([
      ['a', forced],
      ['c', forced],
    ]);
    expect(asked).toEqual([['b', 'kimops.kyma-project.io/force-patch-proposed', '3']]);
    expect(warnings).toEqual([
      'runtime kcp-system/c: could not remove operator.kyma-project.io/force-patch-reconciliation (the next pass tries again; where this pass merged the re-apply, it proposes one more (kimops.kyma-project.io/force-patch above 4), harmless): HTTP 422 — the fix for 422',
    ]);
  });

  it("asks the author of a Runtime's file to take force-patch-reconciliation off", async () => {
    const warnings: string[] = [];
    const folder: RuntimeSource = {
      read: async () => ({ inputs: [], errors: [] }),
      onChange: () => {},
      stop: async () => {},
    };
    const forced = { 'operator.kyma-project.io/force-patch-reconciliation': 'true' };
    await reportRuntimeFacts([{ runtime: runtime('a'), remove: forced, counter: 1 }], folder, (line) =>
      warnings.push(line),
    );
    expect(warnings).toEqual([
      "runtime kcp-system/a: main holds the re-apply operator.kyma-project.io/force-patch-reconciliation asked for; a file keeps the annotation, so remove it from the Runtime's file (while it stays, no further re-apply is proposed)",
    ]);
  });
});
