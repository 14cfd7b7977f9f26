import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { GenerateResult, ShootOutcome } from './generate.js';
import { generatorMetrics } from './metrics.js';

const outcome = (pr: number, action: ShootOutcome['action'], changeClass: ShootOutcome['class']): ShootOutcome => ({
  pr,
  url: `https://example.invalid/pull/${pr}`,
  action,
  shoot: `s${pr}`,
  class: changeClass,
  disruptive: false,
  runtime: { namespace: 'kcp-system', name: `r${pr}` },
  failedChecks: [],
});

const result = (proposed: ShootOutcome[], extra: Partial<GenerateResult> = {}): GenerateResult => ({
  proposed,
  rendered: proposed.length,
  unchanged: 0,
  closed: [],
  leftOpen: [],
  failures: [],
  bugs: [],
  inMain: [],
  suspended: [],
  refused: [],
  ...extra,
});

const HOUR = 3_600_000;

describe('generatorMetrics', () => {
  it('counts proposals by action and class, and PRs left open by what they wait for', async () => {
    const registry = new Registry();
    const metrics = generatorMetrics(registry, 'dev');
    metrics.passed(
      result([
        outcome(1, 'auto-merge', 'create'),
        outcome(2, 'await-review', 'update'),
        outcome(3, 'blocked', 'update'),
        // A rollout PR with two Shoots: one open PR.
        outcome(4, 'await-review', 'update'),
        outcome(4, 'await-review', 'update'),
      ]),
      0.5,
      0,
    );
    const text = await registry.metrics();
    expect(text).toContain('kimops_generator_proposals_total{landscape="dev",action="auto-merge",class="create"} 1');
    expect(text).toContain('kimops_generator_proposals_total{landscape="dev",action="await-review",class="update"} 3');
    expect(text).toContain(
      'kimops_generator_open_pull_requests{landscape="dev",state="awaiting-review",class="update"} 2',
    );
    expect(text).toContain('kimops_generator_open_pull_requests{landscape="dev",state="blocked",class="update"} 1');
    expect(text).not.toContain('state="awaiting-review",class="create"');
    expect(text).toContain('kimops_generator_passes_total{landscape="dev"} 1');
  });

  it('says how long the oldest PR has waited, forgetting PRs that closed', async () => {
    const registry = new Registry();
    const metrics = generatorMetrics(registry, 'dev');
    metrics.passed(result([outcome(7, 'await-review', 'update')]), 1, 0);
    metrics.passed(result([outcome(7, 'await-review', 'update'), outcome(8, 'blocked', 'delete')]), 1, 2 * HOUR);
    expect(await registry.metrics()).toContain(
      'kimops_generator_oldest_open_pull_request_seconds{landscape="dev"} 7200',
    );
    // #7 merged: the oldest is now #8, seen first at 2 h.
    metrics.passed(result([outcome(8, 'blocked', 'delete')]), 1, 3 * HOUR);
    expect(await registry.metrics()).toContain(
      'kimops_generator_oldest_open_pull_request_seconds{landscape="dev"} 3600',
    );
    metrics.passed(result([]), 1, 4 * HOUR);
    const text = await registry.metrics();
    expect(text).toContain('kimops_generator_oldest_open_pull_request_seconds{landscape="dev"} 0');
    expect(text).not.toContain('kimops_generator_open_pull_requests{');
  });

  it("takes a PR's age from the forge where it says when the PR was opened: a restart does not reset it", async () => {
    const registry = new Registry();
    const metrics = generatorMetrics(registry, 'dev');
    const opened = { ...outcome(5, 'await-review', 'update'), openedAt: new Date(1 * HOUR).toISOString() };
    metrics.passed(result([opened]), 1, 26 * HOUR);
    expect(await registry.metrics()).toContain(
      'kimops_generator_oldest_open_pull_request_seconds{landscape="dev"} 90000',
    );
  });

  it('reports conversion failures, the queue for later passes, and failed passes', async () => {
    const registry = new Registry();
    const metrics = generatorMetrics(registry, 'dev');
    metrics.passed(
      result([], {
        failures: [{ runtime: 'kcp-system/r1', message: 'no region' }] as GenerateResult['failures'],
        rollout: { name: 'k8s-1.34', pr: 9, shoots: 5, later: 20 },
        deprovisioning: { proposed: 2, later: 3 },
      }),
      2,
      5_000,
    );
    metrics.failed(1);
    const text = await registry.metrics();
    expect(text).toContain('kimops_generator_conversion_failures{landscape="dev"} 1');
    expect(text).toContain('kimops_generator_queue_depth{landscape="dev"} 23');
    expect(text).toContain('kimops_generator_last_pass_timestamp_seconds{landscape="dev"} 5');
    expect(text).toContain('kimops_generator_passes_total{landscape="dev"} 2');
    expect(text).toContain('kimops_generator_pass_failures_total{landscape="dev"} 1');
    expect(text).toContain('kimops_generator_pass_duration_seconds_count{landscape="dev",outcome="failed"} 1');
    expect(text).toContain('kimops_generator_pass_duration_seconds_count{landscape="dev",outcome="ok"} 1');
  });
});
