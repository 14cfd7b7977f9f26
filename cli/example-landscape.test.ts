// The shipped stage and prod landscapes hold invented values (`example: true`): the commands that write refuse
// them unless --allow-example-landscape says the user means it; the reading ones (and apply's --dry-run) take them.
import { describe, expect, it } from 'vitest';
import { kimops, UNREACHABLE_KUBECONFIG } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { refuseExampleLandscape } from './landscape-target.js';
import { readLandscape } from '../adapters/files/landscape.js';

const dir = useTempDir('example-landscape');

const REFUSAL = 'landscape prod is an example (example: true): its values are invented';

describe('example landscapes', () => {
  it.each(['generate', 'apply', 'backfill'])(
    'are refused by %s, naming the landscape and both ways out',
    async (command) => {
      const kubeconfig = await dir.write('unreachable.kubeconfig', UNREACHABLE_KUBECONFIG);
      const repo = `${dir.path}/landscape-prod.git`;
      const argv = {
        generate: ['--runtimes', 'examples/runtimes/keb', '--repo', repo],
        apply: ['--repo', repo, '--garden-kubeconfig', kubeconfig],
        backfill: ['--kcp-kubeconfig', kubeconfig, '--garden-kubeconfig', kubeconfig],
      }[command] as string[];
      if (command !== 'backfill') expect((await kimops(['init', '--landscape', 'prod', repo])).code).toBe(0);
      const run = await kimops([command, '--landscape', 'prod', ...argv, '--once']);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(REFUSAL);
      expect(run.stderr).toContain('kimops landscape from-kim');
      expect(run.stderr).toContain('--allow-example-landscape');
      expect(run.stdout).toBe('');
    },
  );

  it('are refused when main of the repo holds one and no --landscape is given', async () => {
    const repo = `${dir.path}/landscape-stage.git`;
    expect((await kimops(['init', '--landscape', 'stage', repo])).code).toBe(0);
    const run = await kimops(['generate', '--runtimes', 'examples/runtimes/keb', '--repo', repo, '--once']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('landscape stage is an example (example: true)');
  });

  it('are taken with --allow-example-landscape, and by apply --dry-run, which writes nothing', async () => {
    const kubeconfig = await dir.write('unreachable.kubeconfig', UNREACHABLE_KUBECONFIG);
    const repo = `${dir.path}/landscape-allowed.git`;
    expect((await kimops(['init', '--landscape', 'prod', repo])).code).toBe(0);
    const generate = await kimops([
      ...['generate', '--landscape', 'prod', '--runtimes', 'examples/runtimes/keb/aws.yaml', '--repo', repo],
      ...['--once', '--allow-example-landscape'],
    ]);
    expect(generate.stderr).not.toContain(REFUSAL);
    expect(generate.code, generate.stderr).toBe(0);
    // Past the refusal, each reaches for its cluster and finds nothing there.
    const dryRun = await kimops(['apply', '--repo', repo, '--garden-kubeconfig', kubeconfig, '--once', '--dry-run']);
    expect(dryRun.stderr).not.toContain('is an example');
    expect(dryRun.code).toBe(69);
    const backfill = await kimops([
      ...['backfill', '--landscape', 'prod', '--kcp-kubeconfig', kubeconfig, '--garden-kubeconfig', kubeconfig],
      ...['--once', '--allow-example-landscape'],
    ]);
    expect(backfill.stderr).not.toContain('is an example');
    expect(backfill.code).toBe(69);
  });

  it('leaves a landscape that is no example alone', async () => {
    const dev = await readLandscape('dev');
    expect(dev.example).toBeUndefined();
    expect(refuseExampleLandscape(dev, false)).toBe(dev);
    const stage = await readLandscape('stage');
    expect(() => refuseExampleLandscape(stage, undefined)).toThrow('landscape stage is an example');
    expect(refuseExampleLandscape(stage, true)).toBe(stage);
  });
});
