import { describe, expect, it } from 'vitest';
import { PIPELINE_ANNOTATION } from '../model/contract.js';
import type { Runtime } from '../model/runtime.js';
import { renderKey } from './render-memo.js';

const runtime = (annotations: Record<string, string>): Runtime =>
  ({
    metadata: { name: 'r', namespace: 'kcp-system', generation: 2, annotations },
    spec: { shoot: { name: 's' } },
  }) as unknown as Runtime;

describe('renderKey', () => {
  it('ignores the generator’s own report on the Runtime, and nothing else of its annotations', () => {
    const plain = renderKey(runtime({ a: '1' }), 'settings');
    expect(renderKey(runtime({ a: '1', [PIPELINE_ANNOTATION]: '{"generation":2}' }), 'settings')).toBe(plain);
    expect(renderKey(runtime({ a: '2' }), 'settings')).not.toBe(plain);
    expect(renderKey(runtime({ a: '1' }), 'other settings')).not.toBe(plain);
  });
});
