import { describe, expect, it } from 'vitest';
import {
  applyFacts,
  applyReportConfigMap,
  readApplyReport,
  readApplyReportCommit,
  reportUnchanged,
} from './apply-report.js';
import type { PlanEntry } from '../applier/plan.js';

const entry = (shoot: string, overrides: Partial<PlanEntry> = {}, generation = '4'): PlanEntry => ({
  shoot,
  action: 'create',
  reasons: [],
  object: {
    kind: 'Shoot',
    name: shoot,
    action: 'create',
    changes: [],
    manifest: {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: {
        name: shoot,
        annotations: { 'infrastructuremanager.kyma-project.io/runtime-generation': generation },
      },
    },
  },
  companions: [],
  ...overrides,
});

describe('applyFacts', () => {
  it('reports creates the seed check blocked and writes Gardener refused, with the Runtime generation they were rendered from', () => {
    const entries = [
      entry('a', { action: 'blocked', seedNotFound: 'Cannot find available seed for the region x.' }),
      entry('b'),
      entry('c', {}, 'n/a'),
    ];
    const failed = [
      {
        shoot: 'b',
        action: 'create' as const,
        lines: ['apply Shoot b: 422 Invalid: spec.region is immutable'],
        status: 422,
      },
      { shoot: 'c', action: 'create' as const, lines: ['apply Shoot c: 403 Forbidden'], status: 403 },
    ];
    expect(Object.fromEntries(applyFacts(entries, { failed }))).toEqual({
      a: { generation: 4, seedNotFound: 'Cannot find available seed for the region x.' },
      b: { generation: 4, applyError: 'apply Shoot b: 422 Invalid: spec.region is immutable' },
      c: { applyError: 'apply Shoot c: 403 Forbidden' },
    });
  });

  it('leaves out what the next sync retries: conflicts, rate limits, timeouts, a vanished Shoot, credentials, 5xx, an unreachable Garden', () => {
    const failed = [401, 404, 408, 409, 429, 500, 503, 0].map((status, i) => ({
      shoot: `s${i}`,
      action: 'update' as const,
      lines: ['x'],
      status,
    }));
    expect(
      applyFacts(
        failed.map((f) => entry(f.shoot)),
        { failed },
      ).size,
    ).toBe(0);
  });
});

describe('applyFacts for SKRs', () => {
  it('reports every SKR the sync could not configure, beside a Shoot’s other facts', () => {
    const skrError = { step: 'oidc' as const, message: 'apply OpenIDConnect kyma-oidc-0: 422: invalid', tree: 't2' };
    const failed = [{ shoot: 'b', action: 'update' as const, lines: ['apply Shoot b: 422 Invalid'], status: 422 }];
    expect(
      Object.fromEntries(
        applyFacts([entry('a'), entry('b')], { failed }, [
          { shoot: 'a', error: skrError },
          { shoot: 'b', error: { ...skrError, step: 'client' } },
        ]),
      ),
    ).toEqual({
      a: { generation: 4, skrError },
      b: { generation: 4, applyError: 'apply Shoot b: 422 Invalid', skrError: { ...skrError, step: 'client' } },
    });
  });

  it('writes the step, its message (cut) and the tree, and reads them back; an unknown step is no fact', () => {
    const skrError = { step: 'administrators' as const, message: 'm'.repeat(600), tree: 't2' };
    const desired = applyReportConfigMap('garden-p', 'abc', new Map([['a', { skrError }]]));
    expect(readApplyReport(desired).get('a')).toEqual({ skrError: { ...skrError, message: `${'m'.repeat(511)}…` } });
    const odd = {
      ...desired,
      data: { 'report.json': '{"shoots": {"a": {"skrError": {"step": "reboot", "message": "m", "tree": "t"}}}}' },
    };
    expect(readApplyReport(odd).size).toBe(0);
  });
});

describe('the report ConfigMap', () => {
  it('reads back what it writes, sorted, and says when the live one already holds it', () => {
    const facts = new Map([
      ['b', { applyError: 'refused' }],
      ['a', { generation: 2, seedNotFound: 'no seed' }],
    ]);
    const desired = applyReportConfigMap('garden-p', 'abc', facts);
    expect(desired.metadata).toEqual({
      name: 'kimops-apply-report',
      namespace: 'garden-p',
      labels: { 'kimops.kyma-project.io/report': 'apply' },
    });
    expect([...readApplyReport(desired)]).toEqual([
      ['a', { generation: 2, seedNotFound: 'no seed' }],
      ['b', { applyError: 'refused' }],
    ]);
    expect(readApplyReportCommit(desired)).toBe('abc');
    expect(reportUnchanged(desired, applyReportConfigMap('garden-p', 'abc', new Map([...facts].reverse())))).toBe(true);
    expect(
      reportUnchanged(desired, applyReportConfigMap('garden-p', 'abc', new Map([['a', { seedNotFound: 'no seed' }]]))),
    ).toBe(false);
    expect(reportUnchanged(undefined, desired)).toBe(false);
  });

  it('holds at most 1,000 Shoots and says how many more there were', () => {
    const facts = new Map(
      Array.from({ length: 1_005 }, (_, i) => [`s${String(i).padStart(4, '0')}`, { applyError: 'x'.repeat(2_000) }]),
    );
    const desired = applyReportConfigMap('garden-p', 'abc', facts);
    expect(readApplyReport(desired).size).toBe(1_000);
    expect(JSON.parse((desired.data as Record<string, string>)['report.json'] as string).notListed).toBe(5);
    expect(Buffer.byteLength((desired.data as Record<string, string>)['report.json'] as string)).toBeLessThan(
      1_000_000,
    );
  });

  it('reads no facts from a missing, unreadable or foreign report', () => {
    expect(readApplyReport(undefined).size).toBe(0);
    const broken = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kimops-apply-report' },
      data: { 'report.json': '{"shoots": ' },
    };
    expect(readApplyReport(broken).size).toBe(0);
    const odd = {
      ...broken,
      data: { 'report.json': '{"shoots": {"a": {"applyError": 3}, "b": "x", "c": {"generation": 1}}}' },
    };
    expect(readApplyReport(odd).size).toBe(0);
  });
});

describe('applyFacts for registry caches', () => {
  it('reports the copy’s failure beside a Shoot’s other facts, writes it (cut) and reads it back', () => {
    const registryCacheError = {
      message: `failed to copy secret for registry cache c: ${'m'.repeat(600)}`,
      tree: 't2',
    };
    const facts = applyFacts([entry('a')], undefined, [], [{ shoot: 'a', error: registryCacheError }]);
    expect(Object.fromEntries(facts)).toEqual({ a: { generation: 4, registryCacheError } });
    const read = readApplyReport(applyReportConfigMap('garden-p', 'abc', facts)).get('a');
    expect(read?.registryCacheError?.tree).toBe('t2');
    expect(read?.registryCacheError?.message).toHaveLength(512);
    const odd = applyReportConfigMap('garden-p', 'abc', new Map());
    odd.data = { 'report.json': '{"shoots": {"a": {"registryCacheError": {"message": 1, "tree": "t"}}}}' };
    expect(readApplyReport(odd).size).toBe(0);
  });
});
