import { describe, expect, it } from 'vitest';
import { LeadershipEnded, type Leadership } from '../adapters/kube/leader-election.js';
import type { CliIo } from './cli-io.js';
import type { LeaderElection } from './leader-option.js';
import { LoopHealth } from './loop-health.js';
import { runUntilStopped } from './until-stopped.js';

/** A Lease granted when the test says so; its loss and release are recorded. */
function fakeElection() {
  let grant: (() => void) | undefined;
  const held = new AbortController();
  const events: string[] = [];
  const leadership: Leadership = {
    signal: held.signal,
    takenFrom: 'created',
    isLeader: () => !held.signal.aborted,
    release: async () => {
      events.push('released');
      held.abort(new LeadershipEnded('kcp-system/kimops-apply-dev', 'released', 'released'));
    },
  };
  const election: LeaderElection = {
    lease: 'kcp-system/kimops-apply-dev',
    acquire: (signal) =>
      new Promise<Leadership>((resolve, reject) => {
        grant = () => resolve(leadership);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
  };
  return {
    election,
    events,
    grant: () => grant?.(),
    lose: () => held.abort(new LeadershipEnded('kcp-system/kimops-apply-dev', 'lost', 'renewals failed')),
  };
}

function testIo(signal: AbortSignal) {
  const lines: string[] = [];
  const io: CliIo = {
    stdout: (text) => void lines.push(text),
    stderr: (text) => void lines.push(text),
    readStdin: async () => '',
    signal,
  };
  return { io, lines };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
};

describe('runUntilStopped with --leader-elect', () => {
  it('runs no pass before the Lease is held, and releases it after the last pass when stopped', async () => {
    const stop = new AbortController();
    const { io, lines } = testIo(stop.signal);
    const fake = fakeElection();
    const health = new LoopHealth(60_000);
    let passes = 0;
    const done = runUntilStopped({
      pass: async () => {
        passes++;
        fake.events.push('pass');
      },
      intervalMs: 60_000,
      io,
      leaderElection: fake.election,
      health,
      exit: () => fake.events.push('exit'),
    });
    await until(() => lines.some((l) => l.includes('as a standby')));
    expect(passes).toBe(0);
    expect(health.ready()).toEqual({ ok: true, message: 'standby: waiting for the Lease' });
    fake.grant();
    await until(() => passes === 1);
    expect(health.ready().ok).toBe(true);
    stop.abort();
    await done;
    expect(fake.events).toEqual(['pass', 'released']);
    expect(health.live().ok).toBe(false);
  });

  it('exits with 75 the moment the Lease is lost', async () => {
    const stop = new AbortController();
    const { io, lines } = testIo(stop.signal);
    const fake = fakeElection();
    const exits: number[] = [];
    const done = runUntilStopped({
      pass: async () => {},
      intervalMs: 60_000,
      io,
      leaderElection: fake.election,
      exit: (code) => {
        exits.push(code);
        stop.abort();
      },
    });
    fake.grant();
    await until(() => lines.some((l) => l.includes('holding the Lease')));
    fake.lose();
    expect(exits).toEqual([75]);
    expect(lines.join('')).toContain('error: lost the Lease kcp-system/kimops-apply-dev: exiting now');
    await done;
  });

  it('exits with 75 when the Lease is lost during the last pass after SIGTERM, and drains before releasing', async () => {
    const stop = new AbortController();
    const { io, lines } = testIo(stop.signal);
    const fake = fakeElection();
    const exits: number[] = [];
    let passes = 0;
    const done = runUntilStopped({
      pass: async () => {
        if (++passes === 2) {
          stop.abort(); // SIGTERM arrives while the pass runs, and the Lease is lost before it ends
          fake.lose();
        }
      },
      intervalMs: 1,
      io,
      leaderElection: fake.election,
      drain: async () => void fake.events.push('drained'),
      exit: (code) => void exits.push(code),
    });
    fake.grant();
    await done;
    expect(exits).toEqual([75]);
    expect(lines.join('')).toContain('error: lost the Lease');
    expect(fake.events).toEqual(['drained', 'released']);
  });

  it('drains what runs outside the passes before it releases the Lease', async () => {
    const stop = new AbortController();
    const { io } = testIo(stop.signal);
    const fake = fakeElection();
    const done = runUntilStopped({
      pass: async () => void stop.abort(),
      intervalMs: 60_000,
      io,
      leaderElection: fake.election,
      drain: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        fake.events.push('drained');
      },
    });
    fake.grant();
    await done;
    expect(fake.events).toEqual(['drained', 'released']);
  });

  it('stops while waiting as a standby without running a pass', async () => {
    const stop = new AbortController();
    const { io, lines } = testIo(stop.signal);
    const fake = fakeElection();
    let passes = 0;
    const done = runUntilStopped({
      pass: async () => void passes++,
      intervalMs: 60_000,
      io,
      leaderElection: fake.election,
    });
    await until(() => lines.some((l) => l.includes('as a standby')));
    stop.abort();
    await done;
    expect(passes).toBe(0);
    expect(fake.events).toEqual([]);
  });
});
