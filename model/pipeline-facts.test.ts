import { describe, expect, it } from 'vitest';
import { pipelineAnnotationValue, readPipelineAnnotation, withApplyFacts } from './pipeline-facts.js';
import { PIPELINE_ANNOTATION } from './contract.js';

const read = (text: string) => readPipelineAnnotation({ [PIPELINE_ANNOTATION]: text });

describe('the pipeline annotation', () => {
  it('reads back what it writes, in one key order whatever the facts were built in', () => {
    const facts = {
      proposal: { commit: 'abc', state: 'merged' as const, url: 'https://github.com/acme/l/pull/7' },
      validationError: 'policy x: y',
      generation: 4,
    };
    const text = pipelineAnnotationValue(facts);
    expect(text).toBe(
      '{"generation":4,"validationError":"policy x: y","proposal":{"url":"https://github.com/acme/l/pull/7","state":"merged","commit":"abc"}}',
    );
    expect(read(text)).toEqual(facts);
    expect(
      pipelineAnnotationValue({
        generation: 4,
        validationError: 'policy x: y',
        proposal: { url: 'https://github.com/acme/l/pull/7', state: 'merged', commit: 'abc' },
      }),
    ).toBe(text);
  });

  it('carries the generator’s audit-log failure (step and KIM’s text) and drops one of an unknown step', () => {
    const auditLogError = { step: 'reserve' as const, message: 'no available AuditLogCR in the pool for region r' };
    const text = pipelineAnnotationValue({ generation: 2, auditLogError });
    expect(text).toBe(
      '{"generation":2,"auditLogError":{"step":"reserve","message":"no available AuditLogCR in the pool for region r"}}',
    );
    expect(read(text)).toEqual({ generation: 2, auditLogError });
    expect(read('{"auditLogError":{"step":"claim","message":"m"}}')).toEqual({
      auditLogError: { step: 'claim', message: 'm' },
    });
    expect(read('{"auditLogError":{"step":"release","message":"m"}}')).toEqual({});
    expect(read('{"auditLogError":{"step":"claim"}}')).toEqual({});
    expect(
      read(pipelineAnnotationValue({ auditLogError: { step: 'claim', message: 'x'.repeat(5_000) } })),
    ).toMatchObject({ auditLogError: { message: expect.stringMatching(/^x{1999}…$/) } });
  });

  it('cuts long messages, so one broken Runtime cannot make its annotation huge', () => {
    const text = pipelineAnnotationValue({ conversionError: 'x'.repeat(10_000) });
    expect(read(text).conversionError).toHaveLength(2_000);
    expect(read(text).conversionError?.endsWith('…')).toBe(true);
  });

  it('reads no facts from a missing, broken or foreign annotation, and drops fields of the wrong shape', () => {
    expect(readPipelineAnnotation(undefined)).toEqual({});
    expect(readPipelineAnnotation({ other: '{}' })).toEqual({});
    expect(read('{"generation": 3')).toEqual({});
    expect(read('"just text"')).toEqual({});
    expect(read('{"generation":"3","conversionError":5,"proposal":{"url":"u","state":"done"}}')).toEqual({});
    expect(read('{"generation":3.5,"proposal":{"url":"u","state":"open","commit":1}}')).toEqual({
      proposal: { url: 'u', state: 'open' },
    });
  });
});

describe('withApplyFacts', () => {
  const generator = { generation: 3, proposal: { url: 'u', state: 'merged' as const } };
  it('adds the applier’s failures about the Runtime’s generation (or a newer, or an unknown one)', () => {
    expect(withApplyFacts(generator, { generation: 3, seedNotFound: 'no seed' }, 3)).toEqual({
      ...generator,
      seedNotFound: 'no seed',
    });
    expect(withApplyFacts(generator, { applyError: 'refused' }, 3)).toEqual({ ...generator, applyError: 'refused' });
  });
  it('carries the SKR step that failed', () => {
    const skrError = { step: 'client' as const, message: 'adminkubeconfig refused', tree: 't' };
    expect(withApplyFacts(generator, { generation: 3, skrError }, 3)).toEqual({ ...generator, skrError });
  });
  it('leaves out failures about an older generation: they do not answer KEB’s newest change', () => {
    expect(withApplyFacts(generator, { generation: 2, applyError: 'refused' }, 3)).toEqual(generator);
    expect(withApplyFacts(generator, undefined, 3)).toEqual(generator);
  });
});
