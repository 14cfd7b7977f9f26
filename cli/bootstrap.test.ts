// `kimops bootstrap` without a cluster: what it refuses before it reads the KCP or the Garden. The bootstrap itself
// runs in generator/bootstrap.test.ts and, through this command, on the plane in test/integration/bootstrap.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kimops } from '../test/helpers/cli.js';

describe('kimops bootstrap', () => {
  let dir: string;
  // The command's modules loaded once, outside the tests' time.
  beforeAll(async () => {
    await import('./bootstrap.js');
    dir = await mkdtemp(join(tmpdir(), 'kimops-cli-bootstrap-'));
    expect((await kimops(['init', '--landscape', 'dev', join(dir, 'landscape.git')])).code).toBe(0);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('needs the Garden: without --garden-kubeconfig it is a usage error (exit 2)', async () => {
    const result = await kimops(['bootstrap', '--repo', join(dir, 'landscape.git'), '--runtimes', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--garden-kubeconfig <file>' not specified");
  });

  it.each([
    [['--repo', join(tmpdir(), 'no-such-landscape.git')], /no-such-landscape\.git is not a bare git repository/],
    [[], /--garden-kubeconfig: .*missing-garden\.yaml does not exist/],
  ])('refuses %j with the fix, reading no cluster (exit 2)', async (extra, message) => {
    const result = await kimops([
      ...['bootstrap', '--repo', join(dir, 'landscape.git'), '--runtimes', dir],
      ...['--garden-kubeconfig', join(dir, 'missing-garden.yaml'), ...extra],
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
