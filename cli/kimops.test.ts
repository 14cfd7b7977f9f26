import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import { EXIT, reportFailure } from './cli-io.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `--import tsx` resolved here, so the child can run from any working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('kimops as a process', () => {
  it('runs `render` from another working directory and sets the exit code', async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', TSX, `${ROOT}cli/kimops.ts`, 'render', '--landscape', 'dev', '--runtime', `${ROOT}examples/runtimes/keb/aws.yaml`],
      { cwd: '/', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^apiVersion: v1\nkind: ConfigMap\n[\s\S]*\n---\napiVersion: core.gardener.cloud\/v1beta1\nkind: Shoot\n/);

    const usage = await run(process.execPath, ['--import', TSX, `${ROOT}cli/kimops.ts`, 'render'], { cwd: ROOT }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(usage).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining("error: required option '--runtime") });
  }, 30_000);

  it('runs as the package\'s bin executable (what npx kimops starts)', async () => {
    const run = promisify(execFile);
    const { stdout } = await run(`${ROOT}cli/kimops-bin.js`, ['render', '--landscape', 'dev', '--runtime', `${ROOT}examples/runtimes/keb/gcp.yaml`], { cwd: '/' });
    expect(stdout).toContain('kind: Shoot');
  }, 30_000);
});

describe('reportFailure', () => {
  const capture = () => {
    let stderr = '';
    return { io: { stdout: () => undefined, stderr: (text: string) => void (stderr += text), readStdin: async () => '' }, stderr: () => stderr };
  };

  it('prints a user error as one line and exits 2', () => {
    const { io, stderr } = capture();
    expect(reportFailure(new ConfigError('landscape.yaml', 'gardener.project', 'is required; add it'), io)).toBe(EXIT.usage);
    expect(stderr()).toBe('error: landscape.yaml: gardener.project: is required; add it\n');
  });

  it('calls anything else a bug, with the stack for the report, and exits 70', () => {
    const { io, stderr } = capture();
    expect(reportFailure(new TypeError('x is undefined'), io)).toBe(EXIT.internal);
    expect(stderr()).toMatch(/^error: internal error: x is undefined\nThis is a bug in kimops; please report it with the details below\.\nTypeError: x is undefined\n\s+at /);
  });

  it('names the Runtime and the cause of a bug met while rendering one', () => {
    const { io, stderr } = capture();
    const error = new Error('rendering runtime kcp-system/x (x.yaml) failed', { cause: new TypeError('boom') });
    expect(reportFailure(error, io)).toBe(EXIT.internal);
    expect(stderr()).toMatch(/^error: internal error: rendering runtime kcp-system\/x \(x\.yaml\) failed: boom\n/);
    expect(stderr()).toContain('caused by: TypeError: boom');
  });
});
