// kimops as a user starts it: a Node process through tsx, and the package's bin executable. Each start
// loads TypeScript through tsx (~2 s on 2 idle cores), too slow for the unit suite.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../cli/cli-io.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** `--import tsx` resolved here, so the child can run from any working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('kimops as a process', () => {
  it('runs `render` from another working directory and sets the exit code', async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        TSX,
        `${ROOT}cli/kimops.ts`,
        'render',
        '--landscape',
        'dev',
        '--runtime',
        `${ROOT}examples/runtimes/keb/aws.yaml`,
      ],
      { cwd: '/', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(stderr).toBe('');
    expect(stdout).toMatch(
      /^apiVersion: v1\nkind: ConfigMap\n[\s\S]*\n---\napiVersion: core.gardener.cloud\/v1beta1\nkind: Shoot\n/,
    );

    const usage = await run(process.execPath, ['--import', TSX, `${ROOT}cli/kimops.ts`, 'render'], { cwd: ROOT }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(usage).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining("error: required option '--runtime"),
    });
  }, 30_000);

  it("runs as the package's bin executable (what npx kimops starts)", async () => {
    const run = promisify(execFile);
    const { stdout } = await run(
      `${ROOT}cli/kimops-bin.js`,
      ['render', '--landscape', 'dev', '--runtime', `${ROOT}examples/runtimes/keb/gcp.yaml`],
      { cwd: '/' },
    );
    expect(stdout).toContain('kind: Shoot');
  }, 30_000);
});
