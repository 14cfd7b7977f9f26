import { describe, expect, it } from 'vitest';
import { ConfigError, ConversionError, TransportError } from './errors.js';
import { printable, printableLines, printableOutput } from './printable.js';

describe('printable', () => {
  it('escapes every control character of a name: ANSI escapes, CR, LF, TAB, DEL, C1, bidi overrides', () => {
    expect(printable('a\x1b[2Jb\rc\nd\te\x7ff\x9bg\u202eh\u2028i\0')).toBe(
      'a\\x1b[2Jb\\rc\\nd\\te\\x7ff\\x9bg\\u202eh\\u2028i\\x00',
    );
    expect(printable('shoots/c-1/shoot.yaml é ✓')).toBe('shoots/c-1/shoot.yaml é ✓');
  });

  it('changes nothing it has escaped already, so printing twice is safe', () => {
    const once = printable('x\x1b[31my\n');
    expect(printable(once)).toBe(once);
    expect(printableLines(once)).toBe(once);
  });

  it('keeps the line breaks of an indented list (kimops’s problem lists), and only those', () => {
    expect(printableLines('2 problems:\n  - a\n  - b')).toBe('2 problems:\n  - a\n  - b');
    expect(printableLines('one\nerror: forged\n')).toBe('one\\nerror: forged\\n');
  });

  it('keeps line breaks and tabs of whole output, escapes the rest', () => {
    expect(printableOutput('a\tb\nc\x1b]0;title\x07\n')).toBe('a\tb\nc\\x1b]0;title\\x07\n');
  });
});

describe('the errors’ messages', () => {
  it('carry no control character of the names in them', () => {
    expect(new ConfigError('run\x1b[2Jtimes/a\n.yaml', 'metadata.\rname', 'is "x"').message).toBe(
      'run\\x1b[2Jtimes/a\\n.yaml: metadata.\\rname: is "x"',
    );
    expect(new ConversionError('kcp-system/a\nruntime b/c: forged', 'spec', 'bad').message).toBe(
      'runtime kcp-system/a\\nruntime b/c: forged: spec: bad',
    );
    expect(new TransportError('https://git\x1b[0m', 'down\nerror: forged').message).toBe(
      'https://git\\x1b[0m: down\\nerror: forged',
    );
  });

  it('keep the source, field and detail as given, for code that words its own message', () => {
    const error = new ConfigError('a\nb', 'f', 'd');
    expect([error.source, error.field, error.detail]).toEqual(['a\nb', 'f', 'd']);
  });
});
