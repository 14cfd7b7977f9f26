import fc from 'fast-check';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toCanonicalYaml, toYamlStream } from './canonical-yaml.js';

/** Strings a YAML 1.1 reader (Kubernetes) would read as something else if written plain. */
const TRAP_WORDS = [
  'yes',
  '0b_', // found by the property test (seed 99249602): the yaml library reads it as a number
  '0x_',
  'no',
  'on',
  'off',
  'y',
  'n',
  'Y',
  'N',
  'Yes',
  'NO',
  'On',
  'OFF',
  'true',
  'False',
  'null',
  'Null',
  '~',
  '',
  '012',
  '08',
  '1e3',
  '1E3',
  '0x1F',
  '0X1F',
  '0o17',
  '0O17',
  '0b101',
  '0B1',
  '1_000',
  '0x_1',
  '+12',
  '-0',
  '.5',
  '1.',
  '1:20',
  '190:20:30',
  '.inf',
  '-.Inf',
  '.NaN',
  '2001-12-14',
  '<<',
  '=',
  '- a',
  'a: b',
  '#c',
  'x #c',
  '&a',
  '*a',
  '!a',
  '%a',
  '@a',
  '`a',
  '|',
  '>',
  '?',
  '[a',
  '{a',
  '"q',
  "'q",
  ' lead',
  'trail ',
  '10.250.0.0/16',
  '80Gi',
  'E0',
  '0b+1',
];

const trickyCharacter = fc.constantFrom(
  'a',
  'Z',
  '0',
  '1',
  ' ',
  '\n',
  '\t',
  '\r',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u0000',
  '\ufeff',
  '#',
  ':',
  '-',
  '"',
  "'",
  '\\',
  '_',
  '.',
  'é',
  '🙂',
);
const yamlishString = fc.oneof(
  fc.constantFrom(...TRAP_WORDS),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: trickyCharacter, maxLength: 12 }),
  fc.stringMatching(/^[-+.0-9_xXoObBeE:]{1,8}$/),
  fc
    .array(fc.string({ unit: trickyCharacter, maxLength: 6 }), { minLength: 2, maxLength: 4 })
    .map((lines) => lines.join('\n')),
);
const { json: jsonish } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    yamlishString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(yamlishString, tie('json'), { maxKeys: 5 }),
  ),
}));

const readAsKubernetes = (text: string): unknown => parse(text, { version: '1.1' });

/** The same content, built in the opposite key order at every level. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value).reverse()) {
    Object.defineProperty(copy, key, { value: reversedKeys(v), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

describe('toCanonicalYaml', () => {
  it('writes values a YAML 1.1 reader reads back identically', () => {
    fc.assert(
      fc.property(jsonish, (value) => {
        expect(readAsKubernetes(toCanonicalYaml(value))).toEqual(value);
      }),
      { numRuns: 500 },
    );
  });

  it('quotes every YAML 1.1 trap word, as a value and as a key', () => {
    for (const word of TRAP_WORDS) {
      const text = toCanonicalYaml({ value: word, list: [word], map: { [word]: 'x' } });
      expect(readAsKubernetes(text)).toEqual({ value: word, list: [word], map: { [word]: 'x' } });
    }
  });

  // `0b+1` and `0b-0` too: go-yaml parses the digits after `0b` with a signed integer parser.
  it.each(['yes', 'on', 'n', '0o17', '0X1F', '0B1', '0b+1', '0b-0', '1_000', '<<', '012', '1:20'])(
    'writes %j quoted, because go-yaml v2 would read it plain as a non-string',
    (word) => {
      expect(toCanonicalYaml({ k: word })).toBe(`k: "${word}"\n`);
    },
  );

  // Found by feeding 40,000 generated values through sigs.k8s.io/yaml v1.6.0 (go-yaml v2), the reader
  // Kubernetes uses: these come out wrong or are refused unless written double-quoted and escaped.
  it.each([
    ['DEL', 'a\u007fb', String.raw`"a\u007fb"`],
    ['NEL', 'a\u0085b', String.raw`"a\u0085b"`],
    ['line separator', 'a\u2028b', String.raw`"a\u2028b"`],
    ['paragraph separator', 'a\u2029b', String.raw`"a\u2029b"`],
    ['BOM', '\ufeffa', String.raw`"\ufeffa"`],
    ['a block line starting with a tab', 'a\n\tb', String.raw`"a\n\tb"`],
    ['a block line of only spaces', ' \nb', String.raw`" \nb"`],
  ])('escapes %s', (_what, value, written) => {
    expect(toCanonicalYaml({ k: value })).toBe(`k: ${written}\n`);
    expect(readAsKubernetes(toCanonicalYaml({ k: value }))).toEqual({ k: value });
  });

  it('does not depend on the order keys were added in', () => {
    fc.assert(
      fc.property(jsonish, (value) => {
        expect(toCanonicalYaml(reversedKeys(value))).toBe(toCanonicalYaml(value));
      }),
      { numRuns: 300 },
    );
  });

  it('orders resource, metadata, list-item and other keys as the landscape repo expects', () => {
    const configMap = {
      zeta: 1,
      data: { b: '1', a: '2' },
      spec: { workers: [{ zones: ['a'], type: 'x', name: 'w' }], extensions: [{ providerConfig: {}, type: 'dns' }] },
      metadata: { uid: 'u', annotations: { z: '1' }, labels: { b: '1', a: '2' }, namespace: 'ns', name: 'n1' },
      kind: 'ConfigMap',
      apiVersion: 'v1',
      alpha: true,
    };
    expect(toCanonicalYaml(configMap)).toBe(
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: n1',
        '  namespace: ns',
        '  labels:',
        '    a: "2"',
        '    b: "1"',
        '  annotations:',
        '    z: "1"',
        '  uid: u',
        'spec:',
        '  extensions:',
        '  - type: dns',
        '    providerConfig: {}',
        '  workers:',
        '  - name: w',
        '    type: x',
        '    zones:',
        '    - a',
        'data:',
        '  a: "2"',
        '  b: "1"',
        'alpha: true',
        'zeta: 1',
        '',
      ].join('\n'),
    );
  });

  it('writes multi-line strings as literal blocks, never folds long lines, and drops undefined', () => {
    const long = 'x'.repeat(300);
    const text = toCanonicalYaml({
      data: { 'config.yaml': 'a: 1\nb:\n- c\n' },
      long,
      gone: undefined,
      list: [undefined],
    });
    expect(text).toBe(`data:\n  config.yaml: |\n    a: 1\n    b:\n    - c\nlist:\n- null\nlong: ${long}\n`);
  });

  it('writes shared objects in full, never as anchors', () => {
    const shared = { a: 1 };
    expect(toCanonicalYaml({ first: shared, second: shared })).toBe('first:\n  a: 1\nsecond:\n  a: 1\n');
  });

  it('refuses values JSON cannot hold, naming the path', () => {
    expect(() => toCanonicalYaml({ spec: { when: new Date(0) } })).toThrow('$.spec.when: [object Date]');
    expect(() => toCanonicalYaml({ n: Number.POSITIVE_INFINITY })).toThrow('$.n: Infinity');
  });
});

describe('toYamlStream', () => {
  it('separates documents with --- and reads back as the same documents', () => {
    const objects = [
      { kind: 'A', apiVersion: 'v1' },
      { kind: 'B', data: { x: 'on' } },
    ];
    const text = toYamlStream(objects);
    expect(text).toBe('apiVersion: v1\nkind: A\n---\nkind: B\ndata:\n  x: "on"\n');
    expect(parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as unknown)).toEqual(objects);
  });

  it('is empty for no documents', () => {
    expect(toYamlStream([])).toBe('');
  });
});
