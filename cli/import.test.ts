import { describe, expect, it } from 'vitest';
import { kimops } from '../test/helpers/cli.js';

describe('kimops import: usage', () => {
  it('needs somewhere to write the Runtimes', async () => {
    const result = await kimops(['import', '--landscape', 'dev', '--garden-kubeconfig', 'g.yaml', '--runtimes', 'r/']);
    expect(result).toMatchObject({ code: 2, stderr: 'error: pass --out <dir> or -o yaml\n' });
  });

  it('needs the Runtimes that exist, to know which Shoots have none', async () => {
    const result = await kimops(['import', '--landscape', 'dev', '--garden-kubeconfig', 'g.yaml', '-o', 'yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: pass --kcp-kubeconfig or --runtimes: /);
  });

  it('replaces files only with --out', async () => {
    const result = await kimops([
      'import',
      '--landscape',
      'dev',
      '--garden-kubeconfig',
      'g.yaml',
      '-o',
      'yaml',
      '--force',
    ]);
    expect(result).toMatchObject({ code: 2, stderr: 'error: --force only applies with --out\n' });
  });

  it('says in its help what it writes and what its check allows', async () => {
    const result = await kimops(['import', '--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('Writes nothing to the KCP or the Garden: ');
    expect(help).toContain(
      'With --skr it POSTs shoots/adminkubeconfig for each Shoot (needs create on shoots/adminkubeconfig;',
    );
    expect(help).toContain(
      "but kimops's ownership labels and the annotation infrastructuremanager.kyma-project.io/runtime-generation",
    );
    expect(help).toContain('kimops import --landscape ./prod/landscape.yaml ');
    expect(help).toContain('--landscape-has-no-runtimes');
  });

  it('refuses an example landscape before it reads anything', async () => {
    const args = ['import', '--landscape', 'stage', '--garden-kubeconfig', 'none.yaml', '--runtimes', 'none/'];
    const result = await kimops([...args, '-o', 'yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('landscape stage is an example (example: true)');
  });
});
