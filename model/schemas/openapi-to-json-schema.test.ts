import { describe, expect, it } from 'vitest';
import { reachableComponents, toStrictJsonSchema } from './openapi-to-json-schema.js';
import { snapshotOf } from './openapi-snapshot.js';

const crd = { closeEmptyObjects: true };
const aggregated = { closeEmptyObjects: false };

describe('toStrictJsonSchema', () => {
  it('closes objects that declare properties, recursively, without touching its input', () => {
    const input = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } };
    const frozen = JSON.stringify(input);
    expect(toStrictJsonSchema(input, crd)).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'object', additionalProperties: false, properties: { b: { type: 'string' } } } },
    });
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it('leaves maps, preserve-unknown-fields nodes and their declared children as Kubernetes prunes them', () => {
    const out = toStrictJsonSchema(
      {
        type: 'object',
        properties: {
          map: { type: 'object', additionalProperties: { type: 'string' } },
          free: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { known: { type: 'object', properties: { x: { type: 'string' } } } },
          },
        },
      },
      crd,
    ) as {
      properties: Record<string, Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> }>;
    };
    expect(out.properties['map']?.['additionalProperties']).toEqual({ type: 'string' });
    expect(out.properties['free']?.['additionalProperties']).toBeUndefined();
    expect(out.properties['free']?.properties?.['known']?.['additionalProperties']).toBe(false);
  });

  it('closes empty objects in CRDs only (elsewhere they are free-form, e.g. RawExtension)', () => {
    expect(toStrictJsonSchema({ type: 'object' }, crd)['additionalProperties']).toBe(false);
    expect(toStrictJsonSchema({ type: 'object' }, aggregated)['additionalProperties']).toBeUndefined();
  });

  it('maps int-or-string to anyOf integer/string and keeps an anyOf a CRD already spells out', () => {
    expect(toStrictJsonSchema({ type: 'string', 'x-kubernetes-int-or-string': true }, crd)).toEqual({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    const spelled = {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: '^x$',
      'x-kubernetes-int-or-string': true,
    };
    expect(toStrictJsonSchema(spelled, crd)).toEqual(spelled);
  });

  it('points component refs at definitions', () => {
    expect(toStrictJsonSchema({ allOf: [{ $ref: '#/components/schemas/a.B' }] }, aggregated)).toEqual({
      allOf: [{ $ref: '#/definitions/a.B' }],
    });
  });
});

describe('snapshots', () => {
  const document = {
    info: { version: 'v9.9.9' },
    components: {
      schemas: {
        Root: {
          description: 'drop me',
          type: 'object',
          properties: { description: { type: 'string' }, b: { allOf: [{ $ref: '#/components/schemas/B' }] } },
        },
        B: { type: 'object', properties: { z: { type: 'string' }, a: { type: 'integer', enum: [3, 1] } } },
        Unrelated: { type: 'string' },
      },
    },
  };

  it('keeps the reachable components only, sorted, without descriptions but with fields named description', () => {
    expect(reachableComponents(document.components.schemas, ['Root'])).toEqual(['B', 'Root']);
    const snapshot = snapshotOf(document, { source: 'test', kubernetesVersion: 'v1.0.0', root: 'Root' });
    expect(snapshot.gardenerVersion).toBe('v9.9.9');
    expect(JSON.stringify(snapshot.components)).toBe(
      JSON.stringify({
        B: { properties: { a: { enum: [3, 1], type: 'integer' }, z: { type: 'string' } }, type: 'object' },
        Root: {
          properties: { b: { allOf: [{ $ref: '#/components/schemas/B' }] }, description: { type: 'string' } },
          type: 'object',
        },
      }),
    );
  });

  it('refuses a document without components, and a dangling ref', () => {
    expect(() => snapshotOf({}, { source: 'x', kubernetesVersion: 'v' })).toThrow(/not an OpenAPI v3 document/);
    expect(() => reachableComponents({ A: { $ref: '#/components/schemas/Gone' } }, ['A'])).toThrow(
      /Gone is referenced/,
    );
  });
});
