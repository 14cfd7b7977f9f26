import fc from 'fast-check';
import { dump } from 'js-yaml';
import { stringify, Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { fastYamlDocument, mayNotBeString } from './yaml-fast-path.js';
import { fullDocuments, YAML_READ_OPTIONS } from './yaml-input.js';

const locate = (index: number, line: number): string => `document ${index}, line ${line}`;

/** The fast path either declines or gives exactly what the full reader gives: the same value (types, -0, NaN) at the same line. */
function expectAgreement(text: string): 'fast' | 'declined' {
  const fast = fastYamlDocument(text, YAML_READ_OPTIONS);
  if (!fast) return 'declined';
  const full = fullDocuments(text, 'x.yaml', locate);
  const expected =
    full.length === 0 ? { value: null } : { value: full[0]?.error?.message ?? full[0]?.value, line: full[0]?.line };
  expect(full.length, text).toBeLessThanOrEqual(1);
  const got = fast.value === null ? { value: null } : fast;
  expect(exact(got), text).toEqual(exact(expected));
  return 'fast';
}

/** A value spelt out so that equality misses nothing: types, key order, plain prototypes, -0, NaN (and keys such as `constructor`). */
function exact(value: unknown): unknown {
  if (Array.isArray(value)) return ['array', value.map(exact)];
  if (value !== null && typeof value === 'object')
    return [
      'object',
      Object.getPrototypeOf(value) === Object.prototype,
      Object.entries(value).map(([k, v]) => [k, exact(v)]),
    ];
  if (typeof value === 'number') return ['number', Object.is(value, -0) ? '-0' : String(value)];
  return [typeof value, value];
}

/** Scalars whose YAML 1.1 meaning differs from YAML 1.2's, JSON's or js-yaml's own. */
const TRICKY = [
  'yes',
  'No',
  'ON',
  'off',
  'y',
  'N',
  'true',
  'False',
  'TRUE',
  '~',
  'null',
  'Null',
  'NULL',
  '',
  '012',
  '0o12',
  '0x1F',
  '0b101',
  '1_000',
  '-0',
  '+5',
  '00',
  '08',
  '1:20',
  '1:20.5',
  '190:20:30',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '.inf',
  '-.Inf',
  '.NaN',
  '.nan',
  '1e3',
  '1.5e+3',
  '1.',
  '.5',
  '3.14',
  '6.8523015e+5',
  '-1.0',
  '1,000',
  '12345678901234567890',
  '0.1.2',
  'a b',
  'v1.33.3',
  '25%',
  "'quoted'",
  '"double"',
  '"on"',
  "'012'",
  '"a\\tb"',
  '"\\u00e9"',
  '"\\x41"',
  '"line\\nbreak"',
  "'it''s'",
  'http://x.y/z',
  'a:b',
  'a #b',
  '-a',
  '[a, b]',
  '{a: 1}',
  '[]',
  '{}',
  '"#"',
  '@at',
  '`tick`',
  '| x',
  '> x',
  '{: x}',
  '"b"# c',
  '[b]#c',
  'b\r',
  ': x',
];
const KEYS = [
  'a',
  'name',
  'yes',
  'on',
  '1',
  '012',
  '0x1F',
  '1.5',
  'true',
  '"quoted"',
  "'q'",
  'a b',
  'a.b/c',
  'x-y',
  '~',
  'null',
  '[a]',
  '{a: 1}',
  '-1',
  '.inf',
];

/** Line-based documents of tricky keys and scalars, nested maps, lists, block scalars, flow collections and comments. */
const handWritten = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...TRICKY)).map(([k, v]) => [`${k}: ${v}`]),
      fc
        .tuple(fc.constantFrom(...KEYS), fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 3 }))
        .map(([k, vs]) => [`${k}:`, ...vs.map((v) => `- ${v}`)]),
      fc
        .tuple(fc.constantFrom(...KEYS), fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 3 }))
        .map(([k, vs]) => [`${k}:`, ...vs.map((v, i) => `  k${i}: ${v}`)]),
      fc
        .tuple(
          fc.constantFrom(...KEYS),
          fc.constantFrom('|', '|-', '|+', '>', '>-', '|2', '|2+', '>1-'),
          fc.array(fc.constantFrom('text', '  indented', '', '    ', 'more: text', '# not a comment'), {
            maxLength: 3,
          }),
        )
        .map(([k, style, lines]) => [`${k}: ${style}`, ...lines.map((l) => (l === '' ? '' : `  ${l}`))]),
      fc
        .tuple(
          fc.constantFrom(...KEYS),
          fc.array(fc.constantFrom(...TRICKY.filter((t) => !/[[\]{},#]/.test(t))), { maxLength: 3 }),
        )
        .map(([k, vs]) => [`${k}: [${vs.join(', ')}]`]),
      fc.constantFrom(
        ['# comment'],
        [''],
        ['a: b # trailing'],
        ['a: multi', '  line plain'],
        ['a:', '  - b', '  - c'],
        ['a: "open'],
        ['a: b: c'],
        ['  a: indented'],
        ['a: b\r'],
        ['# c\r', '\r'],
      ),
    ),
    { maxLength: 6 },
  )
  .map((chunks) => `${chunks.flat().join('\n')}\n`);

/** Any JSON-like value, with strings drawn from the tricky scalars as well as at random. */
const anyValue = (finite: boolean) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...TRICKY),
      fc.string(),
      fc.integer(),
      fc.double(finite ? { noNaN: true, noDefaultInfinity: true } : {}),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ minLength: 1 })), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
const values = anyValue(false);

describe('fastYamlDocument', () => {
  it('reads what kimops writes (canonical YAML) exactly as the full reader does, and does not decline it', () => {
    fc.assert(
      // Canonical YAML has no Infinity or NaN (JSON has none).
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), anyValue(true), { minKeys: 1, maxKeys: 5 }), (object) => {
        const text = toCanonicalYaml(object);
        const outcome = expectAgreement(text);
        // Declining is allowed only for what the fast path leaves on purpose (e.g. a `*` in a quoted string).
        if (outcome === 'declined')
          expect(text).toMatch(
            // eslint-disable-next-line no-control-regex -- control characters are among the reasons to decline
            /[&*!%<>?:~#|\t\r\u0000-\u001F\u007F-\u009F\uFEFF]|null|Null|NULL|__proto__|^---|^\.\.\.|^[ ]+$|[^\n]{1025}/m,
          );
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with the full reader on YAML written by yaml and js-yaml in their styles', () => {
    fc.assert(
      fc.property(
        values,
        fc.constantFrom('yaml', 'yaml-flow', 'yaml-1.1', 'js-yaml', 'js-yaml-flow'),
        (value, style) => {
          const text =
            style === 'yaml'
              ? stringify(value)
              : style === 'yaml-flow'
                ? stringify(value, { collectionStyle: 'flow' })
                : style === 'yaml-1.1'
                  ? stringify(value, { version: '1.1' })
                  : style === 'js-yaml'
                    ? dump(value)
                    : dump(value, { flowLevel: 0 });
          expectAgreement(text);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('agrees with the full reader on hand-written documents, including broken ones (declined, never misread)', () => {
    fc.assert(
      fc.property(handWritten, (text) => void expectAgreement(text)),
      { numRuns: 5000 },
    );
  });

  it('skips the tags only for scalars none of them takes', () => {
    const tags = new Document(null, YAML_READ_OPTIONS).schema.tags.filter(
      (tag) => tag.default === true && tag.test !== undefined,
    );
    const taken = (text: string): boolean => tags.some((tag) => tag.test?.test(text));
    const scalars = fc.oneof(
      fc.constantFrom(...TRICKY, ...KEYS),
      fc.string(),
      fc.stringMatching(/^[-+.~0-9a-zA-Z_:]{0,8}$/),
    );
    fc.assert(
      fc.property(scalars, (text) => {
        expect(!taken(text) || mayNotBeString(text), text).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });

  it('reads YAML 1.1 plain scalars by the yaml library’s rules and leaves quoted ones strings', () => {
    expect(
      fastYamlDocument('a: yes\nb: 012\nc: 2001-12-14\nd: 1:20\ne: "on"\nf: ~\ng: 0x1F\nh: .inf\n', YAML_READ_OPTIONS),
    ).toStrictEqual({
      value: { a: true, b: 10, c: '2001-12-14', d: '1:20', e: 'on', f: null, g: 31, h: Infinity },
      line: 1,
    });
  });

  it('reads a document after 200,000 blank lines (a check that rescanned them from every line would not finish)', () => {
    const text = `${'\n'.repeat(200_000)}a: 1\n`;
    expect(fastYamlDocument(text, YAML_READ_OPTIONS)).toEqual({ value: { a: 1 }, line: 200_001 });
  });

  it('declines a line of megabytes before any regex sees it, whatever the line holds', () => {
    // 12 MB each: with the regex tried first, the quoted pieces overflowed V8's regexp stack (RangeError, exit 70).
    for (const line of [
      `a: x${"'y'".repeat(4_000_000)}`,
      `a: ${'"xx"'.repeat(3_000_000)}`,
      `a: "${'x y '.repeat(3_000_000)}"`,
    ]) {
      expect(fastYamlDocument(`kind: Runtime\n${line}\n`, YAML_READ_OPTIONS)).toBeUndefined();
    }
  });

  it('places the document on its first line of content and returns null for a file of comments', () => {
    expect(fastYamlDocument('# header\n\n  # more\nkind: Shoot\n', YAML_READ_OPTIONS)).toStrictEqual({
      value: { kind: 'Shoot' },
      line: 4,
    });
    expect(fastYamlDocument('# only a comment\n', YAML_READ_OPTIONS)?.value).toBeNull();
  });

  it('declines anchors, tags, merge keys, several documents, duplicate keys and broken YAML', () => {
    const texts = [
      'a: &x 1\nb: *x\n',
      'a: !!binary aGVsbG8=\n',
      'a: {x: 1}\nb:\n  <<: {x: 2}\n',
      'a: 1\n---\nb: 2\n',
      '---\na: 1\n',
      'a: 1\na: 2\n',
      'a: [\n',
      '~: 1\n',
      '? a\n: 1\n',
    ];
    // What a review found the readers disagree on: empty flow keys, indentation indicators, CR line breaks, comments glued to a value, long keys.
    // Nesting past 50 levels: js-yaml reads recursively, the full reader checks depth before it does.
    texts.push(`${Array.from({ length: 60 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} x\n`);
    texts.push(
      'a: {: x}\n',
      'a: {"": 1, : 2}\n',
      'a: |2\n    \n',
      '|2\n  x\n',
      'a: b\r',
      'a: 1\r\nb: 2\r\n',
      'a: "b"# c\n',
      'a: [b]#c\n',
      `${'k'.repeat(1100)}: 1\n`,
      'a: |\n      \n  x\n',
    );
    for (const text of texts) {
      expect(fastYamlDocument(text, YAML_READ_OPTIONS), text).toBeUndefined();
    }
  });
});
