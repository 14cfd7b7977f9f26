import { describe, expect, it } from 'vitest';
import type { ShootStatus } from '../model/shoot.js';
import { type ShootHealthState, isRetryable, shootHealth } from './shoot-health.js';

const op = (state: string, type = 'Reconcile'): ShootStatus['lastOperation'] => ({
  type,
  state,
  progress: 40,
  description: 'd',
});
const errs = (...codes: string[][]): NonNullable<ShootStatus['lastErrors']> =>
  codes.map((c, i) => ({ description: `error ${i + 1}`, codes: c }));

describe('shootHealth', () => {
  it.each<[string, number | undefined, ShootStatus | undefined, ShootHealthState, RegExp]>([
    ['no status yet', 1, undefined, 'unknown', /not reported/],
    ['status without lastOperation', 1, { observedGeneration: 1 }, 'unknown', /not reported/],
    [
      'Succeeded, generations match',
      3,
      { observedGeneration: 3, lastOperation: op('Succeeded') },
      'healthy',
      /Reconcile succeeded at generation 3/,
    ],
    [
      'Succeeded but a newer generation not observed',
      4,
      { observedGeneration: 3, lastOperation: op('Succeeded') },
      'progressing',
      /generation 4 \(observed 3/,
    ],
    [
      'Succeeded, no observedGeneration yet',
      1,
      { lastOperation: op('Succeeded', 'Create') },
      'progressing',
      /generation 1 \(observed 0/,
    ],
    ['Succeeded, no generation on the object', undefined, { lastOperation: op('Succeeded') }, 'healthy', /succeeded/],
    [
      'Pending',
      2,
      { observedGeneration: 2, lastOperation: op('Pending', 'Create') },
      'progressing',
      /Create in progress \(Pending, 40 %\)/,
    ],
    [
      'Processing',
      2,
      { observedGeneration: 2, lastOperation: op('Processing') },
      'progressing',
      /in progress \(Processing/,
    ],
    [
      'Error: Gardener retries',
      2,
      { observedGeneration: 2, lastOperation: op('Error'), lastErrors: errs(['ERR_INFRA_UNAUTHORIZED']) },
      'progressing',
      /still retrying \(ERR_INFRA_UNAUTHORIZED: error 1\)/,
    ],
    [
      'Aborted: Gardener retries',
      2,
      { observedGeneration: 2, lastOperation: op('Aborted') },
      'progressing',
      /still retrying \(no errors reported\)/,
    ],
    [
      'Failed, only retryable codes',
      2,
      {
        observedGeneration: 2,
        lastOperation: op('Failed'),
        lastErrors: errs(['ERR_INFRA_QUOTA_EXCEEDED'], ['ERR_INFRA_RATE_LIMITS_EXCEEDED']),
      },
      'progressing',
      /retryable errors only.*error 1 and 1 more/,
    ],
    [
      'Failed, non-retryable code',
      2,
      { observedGeneration: 2, lastOperation: op('Failed'), lastErrors: errs(['ERR_INFRA_UNAUTHENTICATED']) },
      'failed',
      /given up.*operation=retry/,
    ],
    [
      'Failed, no lastErrors',
      2,
      { observedGeneration: 2, lastOperation: op('Failed') },
      'failed',
      /no errors reported/,
    ],
    [
      'Failed but the spec changed since',
      3,
      { observedGeneration: 2, lastOperation: op('Failed'), lastErrors: errs(['ERR_INFRA_UNAUTHENTICATED']) },
      'progressing',
      /generation 3 \(observed 2; last operation Reconcile Failed\)/,
    ],
    [
      'a state Gardener does not define',
      2,
      { observedGeneration: 2, lastOperation: op('Exploded') },
      'unknown',
      /"Exploded"/,
    ],
  ])('%s → %s', (_what, generation, status, state, reason) => {
    const health = shootHealth({ metadata: { generation }, ...(status ? { status } : {}) });
    expect(health.state).toBe(state);
    expect(health.reason).toMatch(reason);
  });

  it('returns what it decided from, and the codes without repeats', () => {
    const status: ShootStatus = {
      observedGeneration: 1,
      lastOperation: op('Failed', 'Create'),
      lastErrors: errs(['ERR_INFRA_UNAUTHORIZED', 'ERR_INFRA_DEPENDENCIES'], ['ERR_INFRA_UNAUTHORIZED']),
    };
    const health = shootHealth({ metadata: { generation: 1 }, status });
    expect(health).toMatchObject({
      state: 'failed',
      lastOperation: status.lastOperation,
      lastErrors: status.lastErrors,
    });
    expect(health.codes).toEqual(['ERR_INFRA_UNAUTHORIZED', 'ERR_INFRA_DEPENDENCIES']);
  });
});

describe('isRetryable (KIM pkg/gardener/gardener_error_handler.go)', () => {
  it.each<[string, string[][], boolean]>([
    ['no errors', [], false],
    ['an error without codes', [[]], true],
    ['unauthenticated', [['ERR_INFRA_UNAUTHENTICATED']], false],
    [
      'unauthorized beats a retryable code in another error',
      [['ERR_INFRA_QUOTA_EXCEEDED'], ['ERR_INFRA_UNAUTHORIZED']],
      false,
    ],
    ['rate limits', [['ERR_INFRA_RATE_LIMITS_EXCEEDED']], true],
    ['quota', [['ERR_INFRA_QUOTA_EXCEEDED']], true],
    ['infra dependencies', [['ERR_INFRA_DEPENDENCIES']], true],
    ['configuration problem (retryable at KIM HEAD f271b80a)', [['ERR_CONFIGURATION_PROBLEM']], true],
    ['problematic webhook', [['ERR_PROBLEMATIC_WEBHOOK']], true],
    ['a code none of the lists knows', [['ERR_INFRA_RESOURCES_DEPLETED']], true],
    ['cleanup error', [['ERR_CLEANUP_CLUSTER_RESOURCES']], true],
  ])('%s → %s', (_what, codes, expected) => {
    expect(isRetryable(errs(...codes))).toBe(expected);
  });

  it('treats undefined like no errors', () => {
    expect(isRetryable(undefined)).toBe(false);
  });
});
