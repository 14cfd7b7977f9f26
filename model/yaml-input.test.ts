import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { MAX_YAML_DEPTH, parseYaml11, parseYamlDocuments } from './yaml-input.js';

describe('parseYamlDocuments', () => {
  it('reads YAML 1.1 scalars as Kubernetes does', () => {
    const [document] = parseYamlDocuments('a: yes\nb: 012\nc: 2001-12-14\nd: 1:20\ne: "on"\n', 'f.yaml');
    expect(document?.value).toEqual({ a: true, b: 10, c: '2001-12-14', d: '1:20', e: 'on' });
  });

  it('keeps the good documents around a broken one, skips empty ones, and numbers them from 1', () => {
    const text = 'a: 1\n---\nb: [\n---\n# only a comment\n---\nc: 1\nc: 2\n---\nd: 4\n---\n';
    const documents = parseYamlDocuments(text, 'stream.yaml');
    expect(documents.map((d) => [d.index, d.line, d.error?.message ?? d.value])).toEqual([
      [1, 1, { a: 1 }],
      [2, 3, expect.stringMatching(/^stream\.yaml: document 2, line \d+: /)],
      [4, 7, 'stream.yaml: document 4, line 8: Map keys must be unique'],
      [5, 10, { d: 4 }],
    ]);
    expect(documents[1]?.error).toBeInstanceOf(ConfigError);
  });

  it('refuses tags Kubernetes does not read, unresolved aliases and alias bombs', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a]',
      'c: [*b, *b, *b, *b, *b, *b, *b, *b]',
    ].join('\n');
    const messages = ['a: !!binary aGVsbG8=\n', 'a: *nowhere\n', bomb].map(
      (text) => parseYamlDocuments(text, 'x.yaml')[0]?.error?.message,
    );
    expect(messages).toEqual([
      'x.yaml: document 1, line 1: Unresolved tag: tag:yaml.org,2002:binary',
      expect.stringContaining('x.yaml: document 1, line 1: Unresolved alias'),
      "x.yaml: document 1, line 1: expands aliases (*name) past kimops's limit (32 per document), as a YAML bomb does: write the values out instead of using anchors (&) and aliases (*)",
    ]);
  });

  it('reads a line of megabytes: the fast path declines it before any regex sees it', () => {
    // 12 MB of a plain scalar holding quotes: the fast path's quote lookahead overflowed V8's regexp stack on it.
    const value = `x${"'y'".repeat(4_000_000)}`;
    const [document] = parseYamlDocuments(`a: ${value}\n`, 'long.yaml');
    expect((document?.value as { a: string }).a === value).toBe(true); // not toEqual: a failure would diff 12 MB
  });

  it(`refuses a document nested deeper than ${MAX_YAML_DEPTH} levels unread, keeping the others`, () => {
    const nested = (levels: number) => `${'['.repeat(levels - 1)}x${']'.repeat(levels - 1)}`;
    // Levels: the map, its value's lists, the string.
    expect(parseYamlDocuments(`a: ${nested(MAX_YAML_DEPTH - 1)}\n`, 'f.yaml')[0]?.error).toBeUndefined();
    for (const levels of [MAX_YAML_DEPTH, 10_000]) {
      const documents = parseYamlDocuments(`a: 1\n---\nb:\n  c: ${nested(levels)}\n---\nd: 4\n`, 'deep.yaml');
      expect(documents.map((d) => d.error?.message ?? d.value)).toEqual([
        { a: 1 },
        `deep.yaml: document 2, line 4: nests deeper than ${MAX_YAML_DEPTH} levels (a Kubernetes manifest has a few dozen): check that the file is the manifest meant`,
        { d: 4 },
      ]);
    }
    // Compact block lists nest too, on one line.
    expect(parseYamlDocuments(`a:\n${'- '.repeat(10_000)}x\n`, 'deep.yaml')[0]?.error?.message).toContain(
      `nests deeper than ${MAX_YAML_DEPTH} levels`,
    );
  });

  it('returns nothing for an empty stream', () => {
    expect(parseYamlDocuments('', 'empty.yaml')).toEqual([]);
    expect(parseYamlDocuments('# just a comment\n---\n', 'empty.yaml')).toEqual([]);
  });
});

describe('parseYaml11', () => {
  it('returns the one document', () => {
    expect(parseYaml11('name: dev\n', 'landscape.yaml')).toEqual({ name: 'dev' });
  });

  it('names the file and line, without a document number', () => {
    expect(() => parseYaml11('a: 1\na: 2\n', 'landscape.yaml')).toThrow(
      'landscape.yaml: line 2: Map keys must be unique',
    );
    expect(() => parseYaml11('a: 1\n---\nb: 2\n', 'landscape.yaml')).toThrow(
      'landscape.yaml: line 3: a second YAML document — this file must hold exactly one',
    );
    expect(() => parseYaml11('', 'landscape.yaml')).toThrow(
      'landscape.yaml: no YAML document found — the file is empty',
    );
  });
});
