// Every metric the alerts (deploy/base/prometheus-rule.yaml) and the dashboard (deploy/dashboards/kimops.json)
// query is one kimops serves: the registries are built as the watching commands build them, and each name in
// the PromQL must be among theirs. A renamed metric fails here, not silently in production. Each alert also
// carries a severity, a summary, a description and a runbook that exists. promtool's checks of the same
// files run in test/integration/standalone/alert-rules.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applierMetrics } from '../../applier/metrics.js';
import { backfillerMetrics } from '../../backfiller/metrics.js';
import { generatorMetrics } from '../../generator/metrics.js';
import { registerBuildInfo } from './build-info.js';
import { leaderMetrics } from './leader-metrics.js';

const RUNBOOKS = 'https://github.com/kyma-project/kimops/blob/main/docs/runbooks/';
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rule = parse(read('deploy/base/prometheus-rule.yaml')) as { spec: { groups: { rules: AlertRule[] }[] } };
const alerts = rule.spec.groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(read('deploy/dashboards/kimops.json')) as { panels: { targets?: { expr: string }[] }[] };
const dashboardQueries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** The names /metrics serves across the three commands; a histogram serves _bucket, _sum and _count. */
async function servedNames(): Promise<Set<string>> {
  const registry = new Registry();
  applierMetrics(registry, 'x');
  backfillerMetrics(registry, 'x');
  generatorMetrics(registry, 'x');
  leaderMetrics(registry, { loop: 'generate', landscape: 'x' });
  registerBuildInfo(registry, '0.0.0');
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    // prom-client's typings give `type` as a numeric enum; at run time it is the exposition's word.
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
    else names.add(metric.name);
  }
  return names;
}

// PromQL words that look like identifiers but name no metric.
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS_TOO = new Set(['bool', 'offset', 'inf', 'nan']);

/**
 * The metric names in a PromQL expression. Removed first, as they hold identifiers that are not metrics: string
 * literals, label matchers `{…}`, ranges `[…]`, and the label lists of by/without/on/ignoring/group_left/
 * group_right. What is left is an identifier not followed by `(` (a function call), not a keyword, and not
 * part of a number, a duration or a Grafana `$variable`.
 */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  // Whole identifiers only (`(?![\w:])`), so that `sum(` is not read as the metric `su`.
  for (const match of stripped.matchAll(/(?<![\w$.:])[A-Za-z_:][\w:]*(?![\w:])(?!\s*\()/g)) {
    const word = match[0];
    if (!KEYWORDS.has(word) && !KEYWORDS_TOO.has(word.toLowerCase())) names.add(word);
  }
  return [...names];
}

describe('metricNames', () => {
  it('finds metrics, not functions, labels, keywords, durations or variables', () => {
    expect(
      metricNames(
        'histogram_quantile(0.9, sum by (le, stage) (rate(a_bucket{landscape=~"$landscape", x="b c"}[$__rate_interval])))' +
          ' / on (instance) group_left (version) b_info > bool 1e3 unless c offset 5m and time() - d',
      ),
    ).toEqual(['a_bucket', 'b_info', 'c', 'd']);
  });
});

describe('served metrics', () => {
  it('every metric the alerts and the dashboard query is one kimops serves', async () => {
    const served = await servedNames();
    const queries = [...alerts.map((alert) => alert.expr), ...dashboardQueries];
    expect(alerts.length).toBeGreaterThan(10);
    expect(dashboardQueries.length).toBeGreaterThan(10);
    const unknown: string[] = [];
    for (const query of queries) {
      const names = metricNames(query);
      // A query that names no metric would check nothing: the parser has gone wrong.
      expect(names, query).not.toHaveLength(0);
      for (const name of names) if (!served.has(name)) unknown.push(`${name} in ${query.trim()}`);
    }
    expect(unknown).toEqual([]);
  });

  it('every alert has a severity, a summary, a description and a runbook in docs/runbooks', () => {
    for (const alert of alerts) {
      expect(alert.alert).toMatch(/^Kimops[A-Z]\w+$/);
      expect(['warning', 'critical']).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      expect(alert.annotations?.description, alert.alert).toBeTruthy();
      expect(alert.annotations?.runbook_url).toBe(`${RUNBOOKS}${alert.alert}.md`);
      expect(existsSync(new URL(`../../docs/runbooks/${alert.alert}.md`, import.meta.url)), alert.alert).toBe(true);
    }
    const index = read('docs/runbooks/README.md');
    for (const alert of alerts) expect(index, alert.alert).toContain(`[${alert.alert}](${alert.alert}.md)`);
  });
});
