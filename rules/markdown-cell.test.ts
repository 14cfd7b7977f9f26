import { describe, expect, it } from 'vitest';
import { tableCell } from './markdown-cell.js';

describe('tableCell', () => {
  it('keeps a column break, a row break and HTML from leaving the cell', () => {
    expect(tableCell('a|b')).toBe('a\\|b');
    expect(tableCell('<img src=x>&amp;')).toBe('&lt;img src=x&gt;&amp;amp;');
    expect(tableCell('one\ntwo')).not.toContain('\n');
  });

  it('leaves ordinary text alone', () => {
    expect(tableCell('c-78fcc25 spec.kubernetes.version 1.33.3 → 1.34.1')).toBe(
      'c-78fcc25 spec.kubernetes.version 1.33.3 → 1.34.1',
    );
  });
});
