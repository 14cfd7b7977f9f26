// `kimops backfill` without a cluster: its rotation settings are checked before anything is read. The
// passes themselves run against the real control plane in test/integration/backfill.test.ts.
import { describe, expect, it } from 'vitest';
import { kimops } from '../test/helpers/cli.js';

const base = [
  'backfill',
  '--landscape',
  'dev',
  '--kcp-kubeconfig',
  'missing-kcp.yaml',
  '--garden-kubeconfig',
  'missing-garden.yaml',
  '--once',
];

describe('kimops backfill', () => {
  it.each([
    [['--kubeconfig-expiration', 'a day'], /--kubeconfig-expiration: a day is not a duration such as 24h or 90m/],
    [
      ['--kubeconfig-expiration', '5m'],
      /--kubeconfig-expiration: kubeconfig expiration must be a whole number of seconds, at least 600; got 300/,
    ],
    [['--kubeconfig-expiration', '0.5s'], /--kubeconfig-expiration: .*got 0\.5/],
    [
      ['--minimal-rotation-time', '1.5'],
      /--minimal-rotation-time: minimal rotation time must be in \(0, 1\], got 1\.5/,
    ],
    [
      ['--minimal-rotation-time', 'often'],
      /--minimal-rotation-time: minimal rotation time must be in \(0, 1\], got NaN/,
    ],
  ])('refuses %j before reading any kubeconfig (exit 2)', async (extra, message) => {
    const result = await kimops([...base, ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('missing-kcp.yaml');
  });

  it("takes KIM's settings: with them it goes on to the kubeconfigs", async () => {
    const result = await kimops([...base, '--kubeconfig-expiration', '100m', '--minimal-rotation-time', '0.5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing-kcp.yaml does not exist');
  });
});
