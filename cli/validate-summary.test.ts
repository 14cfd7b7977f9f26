// The job summary of `kimops validate --output github`: one row per Shoot with its operation, result and
// findings, other files' findings after, text from the files unable to break the table, long reports cut.
import { describe, expect, it } from 'vitest';
import type { Finding, RepoCheckReport } from '../generator/validate/repo-check.js';
import { stepSummary } from './validate-summary.js';

const deny = (path: string, check: string, message: string, line?: number): Finding => ({
  path,
  check,
  severity: 'deny',
  message,
  ...(line !== undefined && { line }),
});

describe('stepSummary', () => {
  it('gives each checked Shoot a row, findings with their file, and other files after the Shoots', () => {
    const report: RepoCheckReport = {
      shoots: [
        { path: 'shoots/c-1/shoot.yaml', operation: 'UPDATE', checks: 14 },
        { path: 'shoots/c-2/shoot.yaml', operation: 'CREATE', checks: 14 },
        { path: 'shoots/c-3/shoot.yaml', operation: 'DELETE', checks: 2 },
      ],
      unchanged: 9,
      findings: [
        deny('shoots/c-1/shoot.yaml', 'kubernetes-no-downgrade', 'Kubernetes 1.32.5 is lower than the live 1.33.3'),
        { ...deny('shoots/c-3/shoot.yaml', 'worker-scaling-bounds', 'maximum 30 is above 20'), severity: 'warn' },
        deny('notes.md', 'credentials (private-key)', 'a private key', 2),
      ],
    };
    expect(stepSummary(report, '3 Shoots checked changed against origin/main (9 unchanged)')).toBe(
      [
        '### kimops validate',
        '',
        '3 Shoots checked changed against origin/main (9 unchanged)',
        '',
        '| Shoot | operation | result | findings |',
        '| --- | --- | --- | --- |',
        '| `c-1` | update | ❌ denied (1) | ✗ **kubernetes-no-downgrade** (shoot.yaml): Kubernetes 1.32.5 is lower than the live 1.33.3 |',
        '| `c-3` | delete | ⚠️ 1 warning | ! **worker-scaling-bounds** (shoot.yaml): maximum 30 is above 20 |',
        '| `notes.md` | – | ❌ denied (1) | ✗ **credentials (private-key)** (notes.md:2): a private key |',
        '| `c-2` | create | ✅ passed |  |',
        '',
      ].join('\n'),
    );
  });

  it('keeps text from the checked files inside its cell: no column break, no HTML, no line break', () => {
    const report: RepoCheckReport = {
      shoots: [{ path: 'shoots/c-1/shoot.yaml', operation: 'CREATE', checks: 1 }],
      unchanged: 0,
      findings: [deny('shoots/c-1/shoot.yaml', 'yaml', 'bad | <img src=x onerror=alert(1)>\n| x | y |\r\n\u001b[31m')],
    };
    const row =
      stepSummary(report, 'x')
        .split('\n')
        .find((line) => line.startsWith('| `c-1`')) ?? '';
    expect(row).toBe(
      '| `c-1` | create | ❌ denied (1) | ✗ **yaml** (shoot.yaml): bad \\| &lt;img src=x onerror=alert(1)&gt;\\n\\| x \\| y \\|\\r\\n\\x1b[31m |',
    );
    expect(row.split(/(?<!\\)\|/)).toHaveLength(6);
  });

  it('says when nothing changed', () => {
    expect(stepSummary({ shoots: [], unchanged: 12, findings: [] }, '0 Shoots checked')).toBe(
      '### kimops validate\n\n0 Shoots checked\n\nNothing to check: no Shoot changed.\n',
    );
  });

  it('lists every Shoot with findings, at most 100 passed ones, and counts the rest', () => {
    const shoots = Array.from({ length: 250 }, (_, i) => ({
      path: `shoots/c-${String(i).padStart(3, '0')}/shoot.yaml`,
      operation: 'CREATE' as const,
      checks: 14,
    }));
    const findings = shoots.slice(0, 5).map((s) => deny(s.path, 'ssh-access-disabled', 'SSH is on'));
    const summary = stepSummary({ shoots, unchanged: 0, findings }, '250 Shoots checked');
    const rows = summary.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows).toHaveLength(105);
    expect(rows.slice(0, 5).every((row) => row.includes('❌ denied'))).toBe(true);
    expect(summary).toContain('\n145 more rows not shown (145 of them passed).\n');
  });
});
