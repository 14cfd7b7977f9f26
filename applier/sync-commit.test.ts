import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../model/kube-object.js';
import { compactCompanion, compactShoot } from './sync-commit.js';

const managedFields = [
  { manager: 'kimops', operation: 'Apply', fieldsV1: { 'f:spec': {} } },
  { manager: 'kimops', operation: 'Update', fieldsV1: { 'f:metadata': {} } },
  { manager: 'gardenlet', operation: 'Update', fieldsV1: { 'f:status': {} } },
];

describe('compactShoot', () => {
  it('keeps metadata, spec, the field manager’s own applies and the status fields a sync reads, and nothing else', () => {
    const listed = {
      metadata: { name: 'c-1', namespace: 'garden-p', resourceVersion: '9', managedFields },
      spec: { region: 'eu-west-1' },
      status: {
        observedGeneration: 3,
        lastOperation: { type: 'Reconcile', state: 'Succeeded' },
        lastErrors: [],
        retryCycleStartTime: 't',
        conditions: [{ type: 'APIServerAvailable' }],
        technicalID: 'shoot--p--c-1',
      },
    } as unknown as KubeObject;
    expect(compactShoot(listed, 'kimops')).toEqual({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      // fieldsV1 as its JSON text: one string instead of a tree of small objects (plan.ts parses it when it plans the Shoot).
      metadata: {
        name: 'c-1',
        namespace: 'garden-p',
        resourceVersion: '9',
        managedFields: [{ manager: 'kimops', operation: 'Apply', fieldsV1: '{"f:spec":{}}' }],
      },
      spec: { region: 'eu-west-1' },
      status: {
        observedGeneration: 3,
        lastOperation: { type: 'Reconcile', state: 'Succeeded' },
        lastErrors: [],
        retryCycleStartTime: 't',
      },
    });
  });
});

describe('compactCompanion', () => {
  it('keeps the ConfigMap but other managers’ managedFields, and names its kind', () => {
    const listed = { metadata: { name: 'auth', managedFields }, data: { 'config.yaml': 'x' } } as unknown as KubeObject;
    expect(compactCompanion(listed, 'kim')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'auth', managedFields: [] },
      data: { 'config.yaml': 'x' },
    });
    expect(compactCompanion(listed, 'kimops').metadata.managedFields).toEqual([
      { manager: 'kimops', operation: 'Apply', fieldsV1: '{"f:spec":{}}' },
    ]);
  });
});
