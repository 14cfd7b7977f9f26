import { describe, expect, it } from 'vitest';
import { parseYaml11 } from '../model/yaml-input.js';
import { toGoYaml } from './go-yaml.js';

describe('toGoYaml (sigs.k8s.io/yaml, go-yaml v2)', () => {
  it("writes KIM's structured-authentication config as KIM does: keys sorted, lists flush, its quotes", () => {
    const config = {
      apiVersion: 'apiserver.config.k8s.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: 'https://kymatest.accounts400.ondemand.com', audiences: ['24f1d3e7'] },
          claimMappings: { username: { claim: 'sub', prefix: 'qdrH4rb7:' }, groups: { claim: 'groups', prefix: '' } },
        },
      ],
    };
    expect(toGoYaml(config)).toBe(
      [
        'apiVersion: apiserver.config.k8s.io/v1beta1',
        'jwt:',
        '- claimMappings:',
        '    groups:',
        '      claim: groups',
        '      prefix: ""',
        '    username:',
        '      claim: sub',
        "      prefix: 'qdrH4rb7:'",
        '  issuer:',
        '    audiences:',
        '    - 24f1d3e7',
        '    url: https://kymatest.accounts400.ondemand.com',
        'kind: AuthenticationConfiguration',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['plain', 'eu-central-1', 'eu-central-1'],
    ['a colon inside', 'a:b', 'a:b'],
    ['a # not after a space', 'a#b', 'a#b'],
    ['empty: it would read as null', '', '""'],
    ['a number', '123', '"123"'],
    ['an octal-looking number', '0755', '"0755"'],
    ['hex', '0x1F', '"0x1F"'],
    ['a float', '1.5e3', '"1.5e3"'],
    ['a float from a dot', '.5', '".5"'],
    ['a boolean of YAML 1.1', 'on', '"on"'],
    ['null', '~', '"~"'],
    ['a date', '2026-12-02', '"2026-12-02"'],
    ['a timestamp', '2026-12-02T10:00:00Z', '"2026-12-02T10:00:00Z"'],
    ['a base-60 float', '1:30', '"1:30"'],
    ['a trailing colon', 'user:', "'user:'"],
    ['colon and space', 'a: b', "'a: b'"],
    ['space and hash', 'a #b', "'a #b'"],
    ['an indicator first', '*star', "'*star'"],
    ['a dash and space first', '- x', "'- x'"],
    ['a dash alone', '-', "'-'"],
    ['a dash and a letter', '-x', '-x'],
    ['a quote inside single quotes', "it's: x", "'it''s: x'"],
    ['a trailing space', 'x ', "'x '"],
    ['a tab', 'a\tb', '"a\\tb"'],
    ['a digit string that is no number', '9bd05ed7-a930', '9bd05ed7-a930'],
    ['a version', '1.33.3', '1.33.3'],
  ])('quotes a value as go-yaml does: %s', (_, value, written) => {
    const text = toGoYaml({ k: value });
    expect(text).toBe(`k: ${written}\n`);
    // And reads back as the same string.
    expect(parseYaml11(text, 'test')).toEqual({ k: value });
  });

  it("orders keys as go-yaml's sorter: numbers by value, other characters before letters", () => {
    const keys = Object.keys(parseYaml11(toGoYaml({ a10: 1, a9: 2, b: 3, 'a-b': 4, aB: 5, ab: 6 }), 't') as object);
    expect(keys).toEqual(['a-b', 'a9', 'a10', 'aB', 'ab', 'b']);
  });

  it('writes empty collections, null, booleans and numbers inline', () => {
    expect(toGoYaml({ a: [], b: {}, c: null, d: true, e: 3, f: [[], 'x'] })).toBe(
      'a: []\nb: {}\nc: null\nd: true\ne: 3\nf:\n- []\n- x\n',
    );
  });

  it('folds a long text with spaces past column 80, continuing at the value indentation', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const text = toGoYaml({ outer: { message: words } });
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[1]?.startsWith('  message: word0 ')).toBe(true);
    for (const line of lines.slice(2)) expect(line.startsWith('    word')).toBe(true);
    // Every line broke at the first space past the width.
    for (const line of lines.slice(1, -1)) expect(line.slice(0, line.lastIndexOf(' ')).length).toBeLessThanOrEqual(80);
    expect(parseYaml11(text, 't')).toEqual({ outer: { message: words } });
  });

  it('refuses multi-line text, which go-yaml writes as a block it does not imitate here', () => {
    expect(() => toGoYaml({ a: 'x\ny' })).toThrow(/multi-line/);
  });
});
