// `kimops compare` without a Garden: its options, configuration errors and an unreachable Garden, each a clear line
// and its exit code. The comparisons themselves run against the real control plane in
// test/integration/compare.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kimops, UNREACHABLE_KUBECONFIG } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const dir = useTempDir('compare');

async function compareArgs(): Promise<string[]> {
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
  const kubeconfig = await dir.write('garden.kubeconfig', UNREACHABLE_KUBECONFIG);
  return ['compare', '--repo', gitdir, '--garden-kubeconfig', kubeconfig];
}

describe('kimops compare', () => {
  it('refuses the loop flags without --watch, and JSON with it', async () => {
    const args = await compareArgs();
    const metrics = await kimops([...args, '--metrics-port', '0']);
    expect(metrics).toMatchObject({ code: 2, stdout: '' });
    expect(metrics.stderr).toContain('--metrics-port needs --watch');
    const json = await kimops([...args, '--watch', '--output', 'json']);
    expect(json).toMatchObject({ code: 2, stdout: '' });
    expect(json.stderr).toContain('--output json prints one report: leave out --watch');
    const interval = await kimops([...args, '--watch', '--interval', '0']);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('--interval: 0 is not a number of seconds between 1 and 86400');
  });

  it('refuses --interval and --metrics-host without --watch, before reading anything', async () => {
    // Refused before the repo and the kubeconfig are opened: neither need exist.
    const args = ['compare', '--repo', join(dir.path, 'none.git'), '--garden-kubeconfig', join(dir.path, 'none')];
    for (const [flag, value] of [
      ['--interval', '5'],
      ['--metrics-host', '0.0.0.0'],
    ] as const) {
      const alone = await kimops([...args, flag, value]);
      expect(alone).toMatchObject({ code: 2, stdout: '' });
      expect(alone.stderr).toContain(`${flag} needs --watch`);
    }
  });

  it('names a --repo that is no landscape repo, and a landscape other than the repo holds', async () => {
    const args = await compareArgs();
    const missing = await kimops([...args.slice(0, 1), '--repo', join(dir.path, 'nowhere.git'), ...args.slice(3)]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.git is not a bare git repository; create it with kimops init');
    const other = await kimops([...args, '--landscape', 'stage']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('holds landscape dev, not stage');
  });

  it('exits 69 naming the kubeconfig and the fix when the Garden cannot be reached', async () => {
    const args = await compareArgs();
    const result = await kimops(args);
    expect(result.code).toBe(69);
    expect(result.stderr).toContain(`kubeconfig ${args[4] ?? ''}`);
    expect(result.stderr).toContain("check that the API server runs and the kubeconfig's server address");
    expect(result.stdout).toBe('');
  });
});
