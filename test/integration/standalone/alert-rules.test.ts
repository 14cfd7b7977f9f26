// kimops's alerts (deploy/base/prometheus-rule.yaml) checked by Prometheus's own promtool: the rule groups are
// valid, and its unit tests (test/fixtures/alert-rules/prometheus-rule.test.yaml) show each alert firing for
// its condition, after its `for`, with the labels and rendered annotations expected, and staying quiet
// otherwise. promtool comes from Debian's `prometheus` package (.ci/run installs it when missing); this test
// never starts a Prometheus server. The dashboard's queries (deploy/dashboards/kimops.json) are parsed by
// promtool too, as recording rules, with Grafana's variables given plain values. A few seconds.
import { execFile } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { useTempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);
const RULE = new URL('../../../deploy/base/prometheus-rule.yaml', import.meta.url);
const UNIT_TESTS = new URL('../../fixtures/alert-rules/prometheus-rule.test.yaml', import.meta.url);
const DASHBOARD = new URL('../../../deploy/dashboards/kimops.json', import.meta.url);

const dir = useTempDir('alert-rules');

/** promtool's output, or a failure that says how to get promtool when it is not installed. */
async function promtool(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd });
    return stdout + stderr;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT')
      throw new Error('promtool not found: install Debian\'s "prometheus" package (apt-get install prometheus)', {
        cause: error,
      });
    throw new Error(`promtool ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`, {
      cause: error,
    });
  }
}

describe('alert rules (promtool)', () => {
  it('are valid rule groups and pass their unit tests', async () => {
    // promtool reads plain rule files: the PrometheusRule's spec.groups, beside the unit tests that name them.
    const rule = parse(await readFile(RULE, 'utf8')) as { kind: string; spec: { groups: unknown[] } };
    expect(rule.kind).toBe('PrometheusRule');
    await dir.write('rules.yaml', stringify({ groups: rule.spec.groups }));
    await copyFile(UNIT_TESTS, join(dir.path, 'prometheus-rule.test.yaml'));

    const checked = await promtool(['check', 'rules', 'rules.yaml'], dir.path);
    expect(checked).toMatch(/SUCCESS: \d+ rules found/);

    const tested = await promtool(['test', 'rules', 'prometheus-rule.test.yaml'], dir.path);
    expect(tested).toContain('SUCCESS');
  }, 60_000);

  it("the dashboard's queries are valid PromQL", async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    expect(queries.length).toBeGreaterThan(10);
    const rules = queries.map((expr, index) => ({
      record: `kimops:dashboard_query:${index}`,
      expr: expr.replaceAll('$__rate_interval', '5m').replaceAll('$landscape', '.+'),
    }));
    await dir.write('dashboard-rules.yaml', stringify({ groups: [{ name: 'dashboard', rules }] }));
    const checked = await promtool(['check', 'rules', 'dashboard-rules.yaml'], dir.path);
    expect(checked).toContain(`SUCCESS: ${queries.length} rules found`);
  }, 60_000);
});
