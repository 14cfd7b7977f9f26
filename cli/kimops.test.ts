import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import { EXIT, reportFailure } from './cli-io.js';
import { main } from './kimops.js';

// kimops started as a process (tsx, the bin executable): test/integration/standalone/kimops-process.test.ts.

describe('reportFailure', () => {
  const capture = () => {
    let stderr = '';
    return {
      io: { stdout: () => undefined, stderr: (text: string) => void (stderr += text), readStdin: async () => '' },
      stderr: () => stderr,
    };
  };

  it('prints a user error as one line and exits 2', () => {
    const { io, stderr } = capture();
    expect(reportFailure(new ConfigError('landscape.yaml', 'gardener.project', 'is required; add it'), io)).toBe(
      EXIT.usage,
    );
    expect(stderr()).toBe('error: landscape.yaml: gardener.project: is required; add it\n');
  });

  it('calls anything else a bug, with the stack for the report, and exits 70', () => {
    const { io, stderr } = capture();
    expect(reportFailure(new TypeError('x is undefined'), io)).toBe(EXIT.internal);
    expect(stderr()).toMatch(
      /^error: internal error: x is undefined\nThis is a bug in kimops; please report it with the details below\.\nTypeError: x is undefined\n\s+at /,
    );
  });

  it('names the Runtime and the cause of a bug met while rendering one', () => {
    const { io, stderr } = capture();
    const error = new Error('rendering runtime kcp-system/x (x.yaml) failed', { cause: new TypeError('boom') });
    expect(reportFailure(error, io)).toBe(EXIT.internal);
    expect(stderr()).toMatch(/^error: internal error: rendering runtime kcp-system\/x \(x\.yaml\) failed: boom\n/);
    expect(stderr()).toContain('caused by: TypeError: boom');
  });
});

describe('kimops --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    let stdout = '';
    const io = { stdout: (text: string) => void (stdout += text), stderr: () => undefined, readStdin: async () => '' };
    expect(await main(['--version'], io)).toBe(EXIT.ok);
    expect(stdout).toBe(`${version}\n`);
  });
});
