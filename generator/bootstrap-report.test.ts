import { describe, expect, it } from 'vitest';
import type { Shoot } from '../model/shoot.js';
import { changed, testShoot, worker } from '../test/helpers/test-shoot.js';
import {
  bootstrapPullRequest,
  bootstrapReport,
  fullReport,
  reportJson,
  type RenderedLive,
} from './bootstrap-report.js';
import { GITHUB_BODY_LIMIT } from './propose/pr-body.js';

const named = (shoot: Shoot, name: string): Shoot => ({ ...shoot, metadata: { ...shoot.metadata, name } });

function entry(name: string, live: Shoot, leader: 'kim' | 'kimops' = 'kim'): RenderedLive {
  return {
    shoot: name,
    runtime: `kcp-system/rt-${name}`,
    leader,
    render: named(testShoot(), name),
    live: named(live, name),
    failedChecks: [],
  };
}

const base = { landscape: 'dev', withoutShoot: [], leftOut: [], runtimesComplete: true };

describe('bootstrapReport', () => {
  it('clusters the differing fields by how many Shoots share them, and lists what was not written', () => {
    const older = changed((s) => (s.spec.kubernetes.version = '1.32.0'));
    const purpose = changed((s) => (worker(s, 'a').maximum += 1));
    const report = bootstrapReport({
      ...base,
      rendered: [entry('c', purpose), entry('a', older), entry('b', purpose), entry('d', testShoot(), 'kimops')],
      withoutRuntime: ['z-orphan', 'y-orphan'],
    });
    expect(report.written.map((w) => w.shoot)).toEqual(['a', 'b', 'c', 'd']);
    expect(report.clusters).toEqual([
      { path: 'spec.provider.workers[a].maximum', count: 2, shoots: ['b', 'c'] },
      { path: 'spec.kubernetes.version', count: 1, shoots: ['a'] },
    ]);
    expect(report.withoutRuntime).toEqual(['y-orphan', 'z-orphan']);
    const { body } = bootstrapPullRequest(report, { branch: 'kimops/dev-bootstrap', requiredChecks: [] });
    expect(body).toContain('| `spec.provider.workers[a].maximum` | 2 | b, c |');
    expect(body).toContain('- 3 Shoots KIM leads');
    expect(body).toContain(
      '- 1 Shoot kimops leads: the applier takes them over from KIM and writes their differences below. d',
    );
    expect(body).toContain('**Live Shoots without a Runtime** (2): not written, never deleted. y-orphan, z-orphan');
    expect(fullReport(report)).toContain('- `spec.kubernetes.version`: main 1.32.5, live 1.32.0');
  });

  it('keeps the body of 1,000 Shoots and 2,000 orphans under GitHub’s limit, and the full report and JSON whole', () => {
    const rendered = Array.from({ length: 1_000 }, (_, i) => {
      const live = changed((s) => {
        s.spec.kubernetes.version = `1.32.${i % 5}`;
        worker(s, 'a').maximum += 1 + (i % 7);
      });
      return entry(`shoot-${String(i).padStart(5, '0')}`, live);
    });
    const withoutRuntime = Array.from({ length: 2_000 }, (_, i) => `orphan-${i}`);
    const report = bootstrapReport({ ...base, rendered, withoutRuntime });
    const { body } = bootstrapPullRequest(report, {
      branch: 'kimops/dev-bootstrap',
      requiredChecks: ['kimops/validate'],
    });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(GITHUB_BODY_LIMIT - 400);
    expect(body).toMatch(/orphan-\d+, .* and [\d,]+ more/);
    expect(body).toContain(
      '| `spec.kubernetes.version` | 1,000 | shoot-00000, shoot-00001, shoot-00002, shoot-00003, shoot-00004, … |',
    );
    const small = bootstrapPullRequest(report, { branch: 'b', requiredChecks: [], maxBodySize: 3_000 }).body;
    expect(Buffer.byteLength(small)).toBeLessThanOrEqual(3_000 - 400);
    expect(small).toMatch(/orphan-\d+ and 1,9\d\d more/);
    const full = fullReport(report);
    expect(full).toContain('### shoot-00999');
    expect(full).toContain('- orphan-1999');
    expect(JSON.parse(reportJson(report))).toEqual(report);
  });

  it('names a Shoot that cannot be compared instead of failing the report', () => {
    const broken = { ...entry('x', testShoot()), render: { metadata: { name: 'x' } } as unknown as Shoot };
    const report = bootstrapReport({ ...base, rendered: [broken], withoutRuntime: [] });
    expect(report.written[0]?.compareError).toEqual(expect.any(String));
    expect(bootstrapPullRequest(report, { branch: 'b', requiredChecks: [] }).body).toContain(
      '**Could not be compared** (1): x: ',
    );
  });
});
