import { describe, expect, it } from 'vitest';
import { formatGoDuration, formatGoDurationMs, parseGoDuration, rfc3339Seconds } from './go-time.js';

describe('Go time text', () => {
  it.each([
    ['15m', 900e9, '15m0s'],
    ['720h', 2_592_000e9, '720h0m0s'],
    ['1.5s', 1.5e9, '1.5s'],
    ['300ms', 300e6, '300ms'],
    ['0', 0, '0s'],
  ])('parses %s and prints it as Go does', (text, nanos, printed) => {
    expect(parseGoDuration(text)).toBe(nanos);
    expect(formatGoDuration(nanos)).toBe(printed);
  });

  it.each(['', '15', '1d', '-'])('refuses %j as Go does', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m0s'],
    [49_248_000, '13h40m48s'],
    [-90_000, '-1m30s'],
    [-500, '0s'],
    [6_910_300_115_123, '1919527h48m35s'],
  ])('prints %d ms in whole seconds as %s', (ms, text) => {
    expect(formatGoDurationMs(ms)).toBe(text);
  });

  it('prints metav1.Time without fractions', () => {
    expect(rfc3339Seconds(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05Z');
  });
});
