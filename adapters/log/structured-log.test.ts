import { describe, expect, it } from 'vitest';
import { structuredLog, type StructuredLogOptions } from './structured-log.js';

function capture(options: Pick<StructuredLogOptions, 'format' | 'level'> & { secrets?: () => readonly string[] }) {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const log = structuredLog({
    ...options,
    component: 'generator',
    landscape: 'dev',
    stdout: (text) => void out.stdout.push(text),
    stderr: (text) => void out.stderr.push(text),
  });
  return { log, out };
}

describe('structuredLog', () => {
  it('writes JSON records with time, level, component, landscape and the fields; warnings to stderr', () => {
    const { log, out } = capture({ format: 'json', level: 'info' });
    log('info', 'update c-1: #12 opened', { shoot: 'c-1', pr: 12, runtime: 'kcp-system/r1' });
    log('warn', 'the forge refused it');
    const [info] = out.stdout.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(info).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      component: 'generator',
      landscape: 'dev',
      shoot: 'c-1',
      pr: 12,
      runtime: 'kcp-system/r1',
      msg: 'update c-1: #12 opened',
    });
    expect(out.stderr.map((line) => (JSON.parse(line) as { level: string }).level)).toEqual(['warn']);
  });

  it('writes text lines for a terminal, one per record, control characters escaped', () => {
    const { log, out } = capture({ format: 'text', level: 'debug' });
    log('debug', 'nothing changed', { runtime: 'kcp-system/r1' });
    log('error', 'error: failed\nsecond line');
    expect(out.stdout).toEqual([
      expect.stringMatching(/^\S+Z DEBUG generator landscape=dev runtime=kcp-system\/r1 nothing changed\n$/),
    ]);
    expect(out.stderr).toEqual([
      expect.stringMatching(/^\S+Z ERROR generator landscape=dev error: failed\\nsecond line\n$/),
    ]);
  });

  it('leaves out lines below its level', () => {
    const { log, out } = capture({ format: 'json', level: 'warn' });
    log('debug', 'a');
    log('info', 'b');
    log('warn', 'c');
    expect(out.stdout).toEqual([]);
    expect(out.stderr).toHaveLength(1);
  });

  it('cuts credentials out of every message, the known values included', () => {
    const { log, out } = capture({ format: 'json', level: 'info', secrets: () => ['plain-secret-value'] });
    log('info', 'git said: https://kimops:plain-secret-value@github.com/acme/repo.git');
    log('info', 'token: abc.def.ghi');
    const text = out.stdout.join('');
    expect(text).not.toContain('plain-secret-value');
    expect(text).not.toContain('abc.def.ghi');
    expect(text).toContain('[redacted]');
  });
});
