import { isCelError, parse, plan, type CelValue } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import { compareSemver, normalizeAndParseSemver, parseSemver, policyEnv, toCelValue } from './cel-env.js';

function evaluate(expression: string, bindings: Record<string, unknown> = {}): unknown {
  const program = plan(policyEnv, parse(expression)) as (b: Record<string, CelValue>) => unknown;
  const result = program(Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, toCelValue(v)])));
  return isCelError(result) ? `error: ${result.message}` : result;
}

describe('toCelValue', () => {
  it('turns whole JSON numbers into CEL ints, as Kubernetes types integer fields', () => {
    expect(evaluate('object.minimum + 1', { object: { minimum: 3 } })).toBe(4n);
    expect(evaluate('type(object.minimum) == int', { object: { minimum: 3 } })).toBe(true);
  });
  it('keeps fractions as doubles, which do not mix with ints under +', () => {
    expect(evaluate('type(object.ratio) == double', { object: { ratio: 0.5 } })).toBe(true);
    expect(evaluate('object.ratio + 1', { object: { ratio: 0.5 } })).toMatch(/^error: .*overload/);
  });
  it('maps null and missing fields the way unstructured objects do', () => {
    expect(evaluate('oldObject == null', { oldObject: null })).toBe(true);
    expect(evaluate('has(object.spec.a)', { object: { spec: {} } })).toBe(false);
    expect(evaluate('object.spec.a', { object: { spec: {} } })).toMatch(/^error:/);
  });
});

describe('strings extension', () => {
  it.each([
    ["'a,b,c'.split(',')[1]", 'b'],
    ["['a', 'b'].join('-')", 'a-b'],
    ["'AbC'.lowerAscii()", 'abc'],
    ["'10%'.replace('%', '')", '10'],
    ["'abc'.indexOf('c')", 2n],
  ])('%s = %s', (expression, expected) => {
    expect(evaluate(expression)).toEqual(expected);
  });
});

describe('Kubernetes semver library (semverlib.go semantics)', () => {
  it.each([
    ['1.0.0', true],
    ['0.1.0-alpha.1', true],
    ['1.2.3+build.7', true],
    ['v1.0.0', false],
    ['1.0', false],
    ['01.0.0', false],
    ['1.0.0-01', false],
    ['1.0.0-', false],
    ['1.0.0+', false],
    ['hello', false],
  ])('isSemver(%s) is %s', (text, valid) => {
    expect(evaluate(`isSemver('${text}')`)).toBe(valid);
  });

  it('normalizes only when asked: "v" prefix, short versions, leading zeroes', () => {
    expect(evaluate("isSemver('v1.0', true)")).toBe(true);
    expect(evaluate("semver('01.01.01', true).minor()")).toBe(1n);
    expect(() => normalizeAndParseSemver('1.0-beta')).toThrow(/short version/);
    expect(evaluate("semver('v1.2.3')")).toMatch(/^error:/);
  });

  it('reads major, minor and patch as ints', () => {
    expect(evaluate("semver('1.33.3').major()")).toBe(1n);
    expect(evaluate("semver('1.33.3').minor()")).toBe(33n);
    expect(evaluate("semver('1.33.3').patch()")).toBe(3n);
  });

  it.each([
    ['1.2.3', '1.2.3', 0],
    ['1.2.3', '2.0.0', -1],
    ['1.2.3', '0.1.2', 1],
    ['1.10.0', '1.9.0', 1],
    ['1.0.0-alpha', '1.0.0', -1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
    ['1.0.0-beta.11', '1.0.0-beta.2', 1],
    ['1.0.0+a', '1.0.0+b', 0],
  ])('compareTo(%s, %s) = %i', (a, b, expected) => {
    expect(compareSemver(parseSemver(a), parseSemver(b))).toBe(expected);
    expect(evaluate(`semver('${a}').compareTo(semver('${b}'))`)).toBe(BigInt(expected));
    expect(evaluate(`semver('${a}').isLessThan(semver('${b}'))`)).toBe(expected === -1);
    expect(evaluate(`semver('${a}').isGreaterThan(semver('${b}'))`)).toBe(expected === 1);
  });

  it('refuses semver methods on values that are not Semvers', () => {
    expect(evaluate("{'semver': '1.0.0'}.major()")).toMatch(/^error: .*Semver/);
  });
});
