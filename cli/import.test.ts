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

  it('says in its help that it writes nothing to the KCP or the Garden', async () => {
    const result = await kimops(['import', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Writes nothing to the KCP or the Garden');
  });
});
