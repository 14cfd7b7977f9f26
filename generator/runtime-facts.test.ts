import { describe, expect, it } from 'vitest';
import type { AuditLogFailure } from '../model/audit-log.js';
import { readPipelineAnnotation } from '../model/pipeline-facts.js';
import { PIPELINE_ANNOTATION } from '../model/contract.js';
import type { Runtime } from '../model/runtime.js';
import type { ShootOutcome } from './generate.js';
import { runtimeFactWrites } from './runtime-facts.js';

function runtime(name: string, generation: number, annotation?: string): Runtime {
  return {
    metadata: {
      name,
      namespace: 'kcp-system',
      generation,
      ...(annotation !== undefined && { annotations: { [PIPELINE_ANNOTATION]: annotation } }),
    },
    spec: { shoot: { name } },
  } as unknown as Runtime;
}

function outcome(name: string, generation: number, overrides: Partial<ShootOutcome> = {}): ShootOutcome {
  return {
    shoot: name,
    class: 'update',
    disruptive: false,
    runtime: { namespace: 'kcp-system', name, generation },
    failedChecks: [],
    pr: 7,
    url: `https://forge/pull/7`,
    action: 'auto-merge',
    mergeCommit: 'm1',
    ...overrides,
  };
}

const none = { failures: [], proposed: [], inMain: [], mainCommit: 'main1' };
const factsOf = (writes: ReturnType<typeof runtimeFactWrites>, name: string) => {
  const write = writes.find((w) => w.runtime.metadata.name === name);
  if (!write || !('value' in write)) return undefined;
  return write.value === null ? null : readPipelineAnnotation({ [PIPELINE_ANNOTATION]: write.value });
};

describe('runtimeFactWrites', () => {
  it('reports a conversion failure of the Runtime, without repeating its name', () => {
    const writes = runtimeFactWrites([runtime('r1', 3)], {
      ...none,
      failures: [
        {
          source: 's',
          runtime: 'kcp-system/r1',
          field: 'metadata.labels',
          message: 'runtime kcp-system/r1: metadata.labels: kyma-project.io/region is missing',
        },
      ],
    });
    expect(factsOf(writes, 'r1')).toEqual({
      generation: 3,
      conversionError: 'metadata.labels: kyma-project.io/region is missing',
    });
  });

  it.each<[ShootOutcome['action'], string, string | undefined]>([
    ['auto-merge', 'merged', 'm1'],
    ['await-review', 'waiting-for-review', undefined],
    ['blocked', 'blocked', undefined],
    ['merge-refused', 'open', undefined],
    ['left-to-human', 'open', undefined],
  ])('reports the PR of the Runtime’s own change: %s → %s', (action, state, commit) => {
    const writes = runtimeFactWrites([runtime('r1', 3)], {
      ...none,
      proposed: [outcome('r1', 3, { action, ...(action !== 'auto-merge' && { mergeCommit: undefined }) })],
    });
    expect(factsOf(writes, 'r1')).toEqual({
      generation: 3,
      proposal: { url: 'https://forge/pull/7', state, ...(commit && { commit }) },
    });
  });

  it("reports what the pass could not do with the AuditLog pool: alone for a held Runtime, beside a claim's other facts", () => {
    const reserve = {
      step: 'reserve' as const,
      message: 'no available AuditLogCR in the pool for region eu-central-1',
    };
    const claim = { step: 'claim' as const, message: 'failed to claim AuditLogCR: 500: boom' };
    const writes = runtimeFactWrites([runtime('held', 2), runtime('claimed', 5), runtime('fine', 1)], {
      ...none,
      inMain: ['kcp-system/claimed', 'kcp-system/fine'],
      auditLogFailures: new Map<string, AuditLogFailure>([
        ['kcp-system/held', reserve],
        ['kcp-system/claimed', claim],
      ]),
    });
    expect(factsOf(writes, 'held')).toEqual({ generation: 2, auditLogError: reserve });
    expect(factsOf(writes, 'claimed')).toEqual({ generation: 5, auditLogError: claim });
    expect(factsOf(writes, 'fine')).toBeUndefined();
  });

  it('clears an earlier audit-log failure once the pass reserved or claimed', () => {
    const earlier = JSON.stringify({ generation: 2, auditLogError: { step: 'reserve', message: 'none' } });
    const writes = runtimeFactWrites([runtime('r1', 2, earlier)], {
      ...none,
      proposed: [outcome('r1', 2, { class: 'create' })],
      auditLogFailures: new Map(),
    });
    expect(factsOf(writes, 'r1')).toEqual({
      generation: 2,
      proposal: { url: 'https://forge/pull/7', state: 'merged', commit: 'm1' },
    });
  });

  it("drops an earlier audit-log failure of a Runtime the pass did not render, keeping the annotation's other facts", () => {
    const held = JSON.stringify({ generation: 2, auditLogError: { step: 'reserve', message: 'none' } });
    const claim = JSON.stringify({
      generation: 3,
      proposal: { url: 'https://forge/pull/6', state: 'merged', commit: 'm0' },
      auditLogError: { step: 'claim', message: 'failed to claim AuditLogCR: boom' },
    });
    const still = JSON.stringify({ generation: 4, auditLogError: { step: 'reserve', message: 'none' } });
    // The switch turned off (no pool pass at all), or the pool served it: neither is in this pass's failures.
    for (const auditLogFailures of [undefined, new Map<string, AuditLogFailure>()]) {
      const writes = runtimeFactWrites([runtime('held', 2, held), runtime('claim', 3, claim)], {
        ...none,
        ...(auditLogFailures && { auditLogFailures }),
      });
      expect(factsOf(writes, 'held')).toBeNull();
      expect(factsOf(writes, 'claim')).toEqual({
        generation: 3,
        proposal: { url: 'https://forge/pull/6', state: 'merged', commit: 'm0' },
      });
    }
    // Still failing: nothing to write.
    const failing = new Map<string, AuditLogFailure>([['kcp-system/r', { step: 'reserve', message: 'none' }]]);
    expect(runtimeFactWrites([runtime('r', 4, still)], { ...none, auditLogFailures: failing })).toEqual([]);
  });

  it('reports failed checks as a validation error beside the blocked PR', () => {
    const writes = runtimeFactWrites([runtime('r1', 3)], {
      ...none,
      proposed: [
        outcome('r1', 3, {
          action: 'blocked',
          failedChecks: ['no-ssh: SSH access must stay off', 'audit-log: missing'],
        }),
      ],
    });
    expect(factsOf(writes, 'r1')).toMatchObject({
      validationError: 'no-ssh: SSH access must stay off; audit-log: missing',
      proposal: { state: 'blocked' },
    });
  });

  it('says nothing about rollouts (a blocked immutable one included), adoptions and deletions: the Runtime did not ask for them', () => {
    const proposed = [
      ...(['rollout', 'adopt', 'delete'] as const).map((c, i) => outcome(`r${i}`, 1, { class: c })),
      outcome('r3', 1, { class: 'immutable', rollout: true, action: 'blocked' }),
    ];
    expect(
      runtimeFactWrites([runtime('r0', 1), runtime('r1', 1), runtime('r2', 1), runtime('r3', 1)], {
        ...none,
        proposed,
      }),
    ).toEqual([]);
  });

  it('clears an earlier error of a Runtime whose render now only a rollout changes', () => {
    const failed = JSON.stringify({ generation: 1, conversionError: 'x' });
    const writes = runtimeFactWrites([runtime('r1', 1, failed)], {
      ...none,
      proposed: [outcome('r1', 1, { class: 'update', rollout: true, action: 'await-review' })],
    });
    expect(writes).toEqual([
      { runtime: expect.objectContaining({ metadata: expect.objectContaining({ name: 'r1' }) }), value: null },
    ]);
  });

  it('marks an earlier proposal merged once main holds the Shoot, with the main it found it on', () => {
    const earlier = JSON.stringify({
      generation: 3,
      proposal: { url: 'https://forge/pull/7', state: 'waiting-for-review' },
    });
    const writes = runtimeFactWrites([runtime('r1', 3, earlier)], { ...none, inMain: ['kcp-system/r1'] });
    expect(factsOf(writes, 'r1')).toEqual({
      generation: 3,
      proposal: { url: 'https://forge/pull/7', state: 'merged', commit: 'main1' },
    });
  });

  it('removes the annotation once main holds a Runtime whose earlier facts were only an error', () => {
    const writes = runtimeFactWrites([runtime('r1', 4, JSON.stringify({ generation: 3, conversionError: 'x' }))], {
      ...none,
      inMain: ['kcp-system/r1'],
    });
    expect(writes).toEqual([
      { runtime: expect.objectContaining({ metadata: expect.objectContaining({ name: 'r1' }) }), value: null },
    ]);
  });

  it('writes nothing where the annotation already says it, for Runtimes without facts in main, or not rendered', () => {
    const said = JSON.stringify({
      generation: 3,
      proposal: { url: 'https://forge/pull/7', state: 'merged', commit: 'm1' },
    });
    const result = { ...none, proposed: [outcome('r1', 3)], inMain: ['kcp-system/r2'] };
    expect(runtimeFactWrites([runtime('r1', 3, said), runtime('r2', 3), runtime('r3', 3, 'anything')], result)).toEqual(
      [],
    );
  });

  it("reports a forced re-apply (metadata-only, the Runtime's own) and settles its request after the facts", () => {
    const forced = runtime('r1', 3);
    forced.metadata.annotations = { 'operator.kyma-project.io/force-patch-reconciliation': 'true' };
    const writes = runtimeFactWrites([forced], {
      ...none,
      proposed: [outcome('r1', 3, { class: 'metadata-only' })],
      forcePatch: [{ runtime: forced, shoot: 'r1', counter: 1, done: true }],
    });
    expect(factsOf(writes, 'r1')).toMatchObject({ proposal: { state: 'merged', commit: 'm1' } });
    expect(writes.at(-1)).toEqual({
      runtime: forced,
      remove: { 'operator.kyma-project.io/force-patch-reconciliation': 'true' },
      counter: 1,
    });
  });

  it('writes nothing onto a Runtime KIM leads: not its error, not its PR, not even an old annotation removed', () => {
    const failure = { source: 's', runtime: 'kcp-system/r1', field: 'f', message: 'runtime kcp-system/r1: f: bad' };
    const result = { ...none, failures: [failure], proposed: [outcome('r2', 3, { class: 'shadow' })] };
    const runtimes = [runtime('r1', 3), runtime('r2', 3), runtime('r3', 3, '{"generation":2}')];
    expect(runtimeFactWrites(runtimes, { ...result, inMain: ['kcp-system/r3'] }).length).toBeGreaterThan(0);
    expect(
      runtimeFactWrites(runtimes, {
        ...result,
        inMain: ['kcp-system/r3'],
        kimLed: ['kcp-system/r1', 'kcp-system/r2', 'kcp-system/r3'],
      }),
    ).toEqual([]);
  });

  it('says nothing is pending for a cut-over: it is no change the Runtime waits for', () => {
    const writes = runtimeFactWrites([runtime('r1', 3)], {
      ...none,
      proposed: [outcome('r1', 3, { class: 'cut-over', action: 'await-review', mergeCommit: undefined })],
    });
    expect(writes).toEqual([]);
  });
});
