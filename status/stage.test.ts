import { describe, expect, it } from 'vitest';
import type { Stage } from './landscape-status.js';
import { currentPipelineError, runtimeStage, shootStage, type RuntimeStageFacts } from './stage.js';

const URL = 'https://github.com/acme/landscape-dev/pull/7';

/** A Runtime kimops leads, generation 2, Ready, its Shoot applied from main's folder, the facts all in main. */
const base: RuntimeStageFacts = {
  deleting: false,
  leader: 'kimops',
  state: 'Ready',
  generation: 2,
  facts: {},
  inMain: true,
  appliedFromMain: true,
};

describe('runtimeStage', () => {
  const cases: [string, Partial<RuntimeStageFacts>, Stage][] = [
    ['Ready and applied from main', {}, 'ready'],
    ['deleting wins over everything', { deleting: true, leader: 'kim', state: 'Failed' }, 'deleting'],
    ['KIM leads it', { leader: 'kim', state: 'Failed' }, 'kim'],
    ['the Runtime is Failed', { state: 'Failed' }, 'failed'],
    ['a conversion error for this generation', { facts: { generation: 2, conversionError: 'bad' } }, 'failed'],
    ['a validation error, generation not said', { facts: { validationError: 'policy' } }, 'failed'],
    [
      'an audit-log error for this generation',
      { facts: { generation: 2, auditLogError: { step: 'claim', message: 'gone' } } },
      'failed',
    ],
    [
      'an error of an older generation: not proposed yet',
      { facts: { generation: 1, conversionError: 'bad' } },
      'change',
    ],
    ['facts of an older generation', { facts: { generation: 1, proposal: { url: URL, state: 'merged' } } }, 'change'],
    ['no proposal and main lacks the folder', { inMain: false, appliedFromMain: false }, 'change'],
    ['no facts, the Shoot rendered from an older generation (bootstrapped)', { appliedGeneration: 1 }, 'change'],
    ['no facts, the Shoot rendered from this generation', { appliedGeneration: 2 }, 'ready'],
    [
      'facts of this generation, the Shoot of an older one (a rollout kept it)',
      { facts: { generation: 2, proposal: { url: URL, state: 'merged' } }, appliedGeneration: 1 },
      'ready',
    ],
    ['no proposal, main not read', { inMain: undefined, appliedFromMain: undefined }, 'ready'],
    ['its PR is open', { facts: { generation: 2, proposal: { url: URL, state: 'open' } } }, 'pr'],
    ['its PR waits for review', { facts: { proposal: { url: URL, state: 'waiting-for-review' } } }, 'pr'],
    ['its PR is blocked', { facts: { proposal: { url: URL, state: 'blocked' } }, inMain: false }, 'pr'],
    [
      'merged, the Shoot applied from another tree',
      { facts: { generation: 2, proposal: { url: URL, state: 'merged' } }, appliedFromMain: false },
      'merged',
    ],
    ['in main without facts, no Shoot yet', { appliedFromMain: false, state: 'Pending' }, 'merged'],
    [
      'merged and applied, the Runtime not Ready yet',
      { facts: { proposal: { url: URL, state: 'merged' } }, state: 'Pending' },
      'applied',
    ],
    ['applied, no state yet', { state: undefined }, 'applied'],
    ['applied, the Garden not read', { appliedFromMain: undefined, state: 'Pending' }, 'applied'],
  ];
  it.each(cases)('%s', (_, change, stage) => {
    expect(runtimeStage({ ...base, ...change })).toBe(stage);
  });
});

describe('shootStage', () => {
  const cases: [string, Parameters<typeof shootStage>[0], Stage][] = [
    ['deleting', { deleting: true, operationState: 'Failed' }, 'deleting'],
    ['main moved on', { deleting: false, inMain: true, appliedFromMain: false, operationState: 'Succeeded' }, 'merged'],
    [
      'not in main, healthy',
      { deleting: false, inMain: false, appliedFromMain: false, operationState: 'Succeeded' },
      'ready',
    ],
    ['Gardener failed', { deleting: false, operationState: 'Failed' }, 'failed'],
    ['Gardener working', { deleting: false, operationState: 'Processing' }, 'applied'],
    ['no operation yet', { deleting: false }, 'applied'],
  ];
  it.each(cases)('%s', (_, facts, stage) => {
    expect(shootStage(facts)).toBe(stage);
  });
});

describe('currentPipelineError', () => {
  it('names the error of the newest generation, first the conversion', () => {
    expect(currentPipelineError({ generation: 3, conversionError: 'a', validationError: 'b' }, 3)).toEqual({
      reason: 'ConversionError',
      message: 'a',
    });
    expect(currentPipelineError({ auditLogError: { step: 'reserve', message: 'pool empty' } }, 3)).toEqual({
      reason: 'AuditLogError',
      message: 'reserve: pool empty',
    });
  });

  it('says nothing of an older generation, or without an error', () => {
    expect(currentPipelineError({ generation: 2, conversionError: 'a' }, 3)).toBeUndefined();
    expect(currentPipelineError({ generation: 3 }, 3)).toBeUndefined();
  });
});
