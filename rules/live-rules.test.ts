import { describe, expect, it } from 'vitest';
import type { Shoot, Worker } from '../model/shoot.js';
import { contextOf, loadCases } from '../test/helpers/parity-cases.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import { convertWithContext } from '../generator/convert/convert-runtime.js';
import { keepLive } from './live-rules.js';

/** The same rules, once: update mode already honours the live Shoot, so holding its output against that Shoot again changes nothing. */
describe('keepLive on the converter update mode output', () => {
  const patches = loadCases().flatMap(({ cases }) =>
    cases.filter((c) => c.kind === 'patch' && c.given.existingShoot !== undefined),
  );

  it('has patch cases to check', () => {
    expect(patches.length).toBeGreaterThan(50);
  });

  it.each(patches.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const live = c.given.existingShoot as Shoot;
    let converted: Shoot;
    try {
      converted = convertWithContext(c.given.runtime, contextOf(c.given), live).shoot;
    } catch {
      return expect(() => convertWithContext(c.given.runtime, contextOf(c.given), live)).toThrow(); // an error case of the fixture
    }
    const { shoot, kept } = keepLive(converted, live);
    expect(kept).toEqual([]);
    expect(shoot).toEqual(converted);
  });
});

describe('keepLive on a manifest older than the live Shoot (a revert, or maintenance moved on)', () => {
  const settings = landscapeSettings('dev');
  const runtime = exampleRuntime('aws.yaml');
  const manifest = render(runtime, settings).shoot;
  const worker = manifest.spec.provider.workers[0] as Worker;

  function liveFrom(change: (shoot: Shoot) => void): Shoot {
    const live = structuredClone(manifest);
    change(live);
    return live;
  }

  it('keeps a higher live Kubernetes version and says why', () => {
    const live = liveFrom((s) => (s.spec.kubernetes.version = '1.99.1'));
    const { shoot, kept } = keepLive(manifest, live);
    expect(shoot.spec.kubernetes.version).toBe('1.99.1');
    expect(kept).toEqual([
      { path: 'spec.kubernetes.version', why: expect.stringContaining('never downgrades') as string },
    ]);
  });

  it('applies a higher desired Kubernetes version', () => {
    const live = liveFrom((s) => (s.spec.kubernetes.version = '1.0.0'));
    expect(keepLive(manifest, live)).toEqual({ shoot: manifest, kept: [] });
  });

  it('never removes a live zone, keeps live order and appends new zones', () => {
    const live = liveFrom((s) => {
      const w = s.spec.provider.workers[0] as Worker;
      w.zones = ['zone-x', ...(worker.zones ?? []).slice(1)];
    });
    const { shoot, kept } = keepLive(manifest, live);
    const zones = (shoot.spec.provider.workers[0] as Worker).zones;
    expect(zones).toEqual(['zone-x', ...(worker.zones ?? []).slice(1), (worker.zones ?? [])[0]]);
    expect(kept.map((k) => k.path)).toContain(`spec.provider.workers[${worker.name}].zones`);
  });

  it('keeps the live infrastructure config unless a zone is added', () => {
    const live = liveFrom(
      (s) => (s.spec.provider.infrastructureConfig = { ...s.spec.provider.infrastructureConfig, marker: 'live' }),
    );
    const kept = keepLive(manifest, live);
    expect(kept.shoot.spec.provider.infrastructureConfig).toEqual(live.spec.provider.infrastructureConfig);
    expect(kept.kept.map((k) => k.path)).toEqual(['spec.provider.infrastructureConfig']);

    const fewerZones = liveFrom((s) => {
      (s.spec.provider.workers[0] as Worker).zones = (worker.zones ?? []).slice(0, 1);
      s.spec.provider.infrastructureConfig = { marker: 'live' };
    });
    const regenerated = keepLive(manifest, fewerZones);
    expect(regenerated.shoot.spec.provider.infrastructureConfig).toEqual(manifest.spec.provider.infrastructureConfig);
  });

  it('keeps a higher live machine image version of the same image', () => {
    const live = liveFrom((s) => {
      const w = s.spec.provider.workers[0] as Worker;
      w.machine = { ...w.machine, image: { ...w.machine.image, version: '9999.1.0' } };
    });
    const { shoot, kept } = keepLive(manifest, live);
    expect((shoot.spec.provider.workers[0] as Worker).machine.image?.version).toBe('9999.1.0');
    expect(kept.map((k) => k.path)).toEqual([`spec.provider.workers[${worker.name}].machine.image.version`]);
  });

  it('keeps create-only fields at their live values, and says so where main states another value', () => {
    const live = liveFrom((s) => {
      s.spec.tolerations = [{ key: 'live-only' }];
      s.spec.networking.ipFamilies = ['IPv4', 'IPv6'];
    });
    const stating = { ...manifest, spec: { ...manifest.spec, tolerations: [{ key: 'from-git' }] } };
    const { shoot, kept } = keepLive(stating, live);
    expect(shoot.spec.tolerations).toEqual([{ key: 'live-only' }]);
    expect(shoot.spec.networking.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(kept.map((k) => k.path)).toEqual(['spec.tolerations']);
  });

  it('takes what main leaves out from the live Shoot without a note (Gardener defaults)', () => {
    const live = liveFrom((s) => {
      (s.spec.provider.workers[0] as Worker).updateStrategy = 'AutoRollingUpdate';
      s.spec.networking.ipFamilies = ['IPv4'];
    });
    const { shoot, kept } = keepLive(manifest, live);
    expect((shoot.spec.provider.workers[0] as Worker).updateStrategy).toBe('AutoRollingUpdate');
    expect(kept).toEqual([]);
  });

  it('compares configs by content, not key order', () => {
    const live = liveFrom((s) => {
      const config = s.spec.provider.infrastructureConfig ?? {};
      s.spec.provider.infrastructureConfig = Object.fromEntries(Object.entries(config).reverse());
    });
    expect(keepLive(manifest, live).kept).toEqual([]);
  });

  it('lets through what Gardener allows to change back (a worker maximum)', () => {
    const live = liveFrom((s) => ((s.spec.provider.workers[0] as Worker).maximum = worker.maximum + 5));
    const { shoot, kept } = keepLive(manifest, live);
    expect((shoot.spec.provider.workers[0] as Worker).maximum).toBe(worker.maximum);
    expect(kept).toEqual([]);
  });

  it('does not change its input', () => {
    const before = structuredClone(manifest);
    keepLive(
      manifest,
      liveFrom((s) => (s.spec.kubernetes.version = '1.99.1')),
    );
    expect(manifest).toEqual(before);
  });
});
