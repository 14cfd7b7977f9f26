// `kimops apply` without a Garden: options, configuration errors and an unreachable Garden, each a clear
// line and its exit code. The syncs themselves run against the real control plane in
// test/integration/apply.test.ts.
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { kimops, UNREACHABLE_KUBECONFIG } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const dir = useTempDir('apply');

async function repoAndKubeconfig(landscape = 'dev'): Promise<{ gitdir: string; kubeconfig: string }> {
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  return { gitdir, kubeconfig: await dir.write('garden.kubeconfig', UNREACHABLE_KUBECONFIG) };
}

describe('kimops apply', () => {
  it('needs --once or --watch, and refuses a bad --watch setup before it starts looping', async () => {
    const { gitdir, kubeconfig } = await repoAndKubeconfig();
    const base = ['apply', '--landscape', 'dev', '--repo', gitdir, '--garden-kubeconfig', kubeconfig];
    const neither = await kimops(base);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('pass --once or --watch');
    const interval = await kimops([...base, '--watch', '--interval', '0']);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('--interval: 0 is not a number of seconds between 1 and 86400');
    const landscape = await kimops([...base.map((a) => (a === 'dev' ? 'nowhere' : a)), '--watch']);
    expect(landscape.code).toBe(2);
    expect(landscape.stderr).toContain('no landscape "nowhere" ships with kimops');
  });

  it('refuses --webhook-port without KIMOPS_WEBHOOK_SECRET, without --watch, or on a port it cannot have, before looping', async () => {
    const { gitdir, kubeconfig } = await repoAndKubeconfig();
    const base = ['apply', '--landscape', 'dev', '--repo', gitdir, '--garden-kubeconfig', kubeconfig];
    vi.stubEnv('KIMOPS_WEBHOOK_SECRET', '');
    try {
      const noSecret = await kimops([...base, '--watch', '--webhook-port', '0']);
      expect(noSecret.code).toBe(2);
      expect(noSecret.stderr).toContain('KIMOPS_WEBHOOK_SECRET: is not set');
      vi.stubEnv('KIMOPS_WEBHOOK_SECRET', 's3cret');
      const once = await kimops([...base, '--once', '--webhook-port', '0']);
      expect(once.code).toBe(2);
      expect(once.stderr).toContain('--webhook-port needs --watch');
      const notAPort = await kimops([...base, '--watch', '--webhook-port', '70000']);
      expect(notAPort.code).toBe(2);
      expect(notAPort.stderr).toContain('--webhook-port: 70000 is not a port');
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const port = String((taken.address() as { port: number }).port);
        const inUse = await kimops([...base, '--watch', '--webhook-port', port]);
        expect(inUse.code).toBe(2);
        expect(inUse.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      } finally {
        await new Promise<void>((resolve) => taken.close(() => resolve()));
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each([
    [['--allow-mass-deletion', 'many'], '--allow-mass-deletion: many is not a number of Shoots (0 or more)'],
    [
      ['--garden-kubeconfig', '/nonexistent/garden.yaml'],
      '--garden-kubeconfig: /nonexistent/garden.yaml does not exist; pass the path of a kubeconfig file',
    ],
    [
      ['--repo', '/nonexistent/repo.git'],
      '--repo: /nonexistent/repo.git is not a bare git repository; create it with kimops init',
    ],
    [['--repo', 'ssh://git@example.com/landscape.git'], 'only local paths and http(s) URLs are supported'],
    [['--landscape', 'stage'], 'holds landscape dev, not stage; pass the matching landscape or repo'],
  ])('refuses %j with exit 2 and the fix', async (override, message) => {
    const { gitdir, kubeconfig } = await repoAndKubeconfig();
    const options: Record<string, string> = {
      '--landscape': 'dev',
      '--repo': gitdir,
      '--garden-kubeconfig': kubeconfig,
    };
    for (let i = 0; i < override.length; i += 2) options[override[i] as string] = override[i + 1] as string;
    const result = await kimops(['apply', ...Object.entries(options).flat(), '--once']);
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(2);
  });

  it('exits 69 naming the kubeconfig and the fix when the Garden cannot be reached, in dry-run too', async () => {
    const { gitdir, kubeconfig } = await repoAndKubeconfig();
    for (const extra of [[], ['--dry-run']]) {
      const result = await kimops([
        'apply',
        '--landscape',
        'dev',
        '--repo',
        gitdir,
        '--garden-kubeconfig',
        kubeconfig,
        '--once',
        ...extra,
      ]);
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(`kubeconfig ${kubeconfig}`);
      expect(result.stderr).toContain("check that the API server runs and the kubeconfig's server address");
      expect(result.stdout).toBe('');
    }
  });
});
