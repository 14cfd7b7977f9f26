import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from './cli-io.js';
import { ConfigError } from '../model/errors.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';

function sink() {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    readStdin: async () => '',
  };
  return { io, out };
}

const labels = { component: 'backfiller', landscape: 'dev' };

afterEach(() => vi.unstubAllEnvs());

describe('loggingIo', () => {
  it('keeps --once output plain: what the command writes passes unchanged, debug lines included', () => {
    const { io, out } = sink();
    const logged = loggingIo(io, {}, labels, false);
    logged.stdout('plan line 1\n    a reason\n');
    logLine(logged)('1 Runtime(s): 0 status written, 1 unchanged, 0 failed', {}, 'debug');
    logged.stderr('error: --repo: not a repo\n');
    expect(out.stdout).toBe('plan line 1\n    a reason\n1 Runtime(s): 0 status written, 1 unchanged, 0 failed\n');
    expect(out.stderr).toBe('error: --repo: not a repo\n');
  });

  it('makes records of --watch lines: text by default, info and above, errors and warnings on stderr', () => {
    const { io, out } = sink();
    const logged = loggingIo(io, {}, labels, true);
    logLine(logged)('kcp-system/r1: Ready', { runtime: 'kcp-system/r1', shoot: 'c-1' });
    logLine(logged)('1 Runtime(s): 0 status written', {}, 'debug');
    logged.stderr('error: the Garden stopped answering\n');
    logged.stderr('a Shoot cache relisted\n');
    expect(out.stdout).toMatch(
      /^\S+Z INFO {2}backfiller landscape=dev runtime=kcp-system\/r1 shoot=c-1 kcp-system\/r1: Ready\n$/,
    );
    expect(out.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/ ERROR backfiller landscape=dev error: the Garden stopped answering$/),
      expect.stringMatching(/ WARN {2}backfiller landscape=dev a Shoot cache relisted$/),
    ]);
  });

  it('writes one JSON record per stdout line with --log-format json, down to --log-level', () => {
    const { io, out } = sink();
    const logged = loggingIo(io, { logFormat: 'json', logLevel: 'debug' }, labels, true);
    logged.stdout('first\nsecond\n');
    logLine(logged)('quiet', {}, 'debug');
    const records = out.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; msg: string; component: string; landscape: string });
    expect(records.map((r) => [r.level, r.msg, r.component, r.landscape])).toEqual([
      ['info', 'first', 'backfiller', 'dev'],
      ['info', 'second', 'backfiller', 'dev'],
      ['debug', 'quiet', 'backfiller', 'dev'],
    ]);
  });

  it('never prints the tokens kimops holds, in any format', () => {
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'kimops-log-')), 'token');
    writeFileSync(tokenFile, 'opaque-file-token\n');
    vi.stubEnv('KIMOPS_GITHUB_TOKEN_FILE', tokenFile);
    vi.stubEnv('GITHUB_TOKEN', 'opaque-token-value-1');
    vi.stubEnv('KIMOPS_WEBHOOK_SECRET', 'opaque-webhook-secret');
    for (const logFormat of ['plain', 'text', 'json'] as const) {
      const { io, out } = sink();
      const logged = loggingIo(io, { logFormat }, labels, true);
      logged.stderr('error: GitHub refused opaque-token-value-1\n');
      logLine(logged)('signature checked with opaque-webhook-secret');
      logLine(logged)('git push with opaque-file-token refused', {}, 'warn');
      expect(out.stdout + out.stderr).not.toMatch(/opaque-token-value-1|opaque-webhook-secret|opaque-file-token/);
      expect(out.stdout + out.stderr).toContain('[redacted]');
    }
  });

  it('reports a failure that escapes a command as an error record, with its exit code', async () => {
    const { io, out } = sink();
    const logged = loggingIo(io, { logFormat: 'json' }, labels, true);
    const code = await reportingFailures(logged, async () => {
      throw new ConfigError('--garden-kubeconfig', '', 'garden.yaml does not exist');
    });
    expect(code).toBe(2);
    expect(out.stdout).toBe('');
    expect(JSON.parse(out.stderr)).toMatchObject({
      level: 'error',
      component: 'backfiller',
      msg: 'error: --garden-kubeconfig: garden.yaml does not exist',
    });
  });
});
