import { describe, expect, it } from 'vitest';
import { kubeEvent } from './kube-events.js';

describe('kubeEvent', () => {
  const now = new Date('2026-03-04T05:06:07.891Z');

  it('builds a core/v1 Event in its object namespace, stamped in whole seconds', () => {
    expect(
      kubeEvent({
        name: 'rt-1.abc',
        involvedObject: { apiVersion: 'x/v1', kind: 'Runtime', name: 'rt-1', namespace: 'kcp-system', uid: 'u1' },
        type: 'Warning',
        reason: 'Failed',
        message: 'it broke',
        component: 'kimops-backfiller',
        now,
      }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'rt-1.abc', namespace: 'kcp-system' },
      involvedObject: { apiVersion: 'x/v1', kind: 'Runtime', namespace: 'kcp-system', name: 'rt-1', uid: 'u1' },
      reason: 'Failed',
      message: 'it broke',
      type: 'Warning',
      source: { component: 'kimops-backfiller' },
      reportingComponent: 'kimops-backfiller',
      reportingInstance: 'kimops-backfiller',
      firstTimestamp: '2026-03-04T05:06:07Z',
      lastTimestamp: '2026-03-04T05:06:07Z',
      count: 1,
    });
  });

  it('leaves out what the object does not have', () => {
    const event = kubeEvent({
      name: 'n',
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: 'n' },
      type: 'Normal',
      reason: 'R',
      message: 'm',
      component: 'c',
      now,
    });
    expect(event.metadata).toEqual({ name: 'n' });
    expect(event.involvedObject).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'n' });
  });
});
