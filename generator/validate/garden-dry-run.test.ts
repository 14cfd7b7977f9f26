// The Garden's dry run with an in-memory Garden: companions first, the missing-companion rule, refusals as
// findings, an unreachable Garden as a TransportError. test/integration/validate-dry-run.test.ts runs it
// through `kimops validate` against a real gardener-apiserver.
import { describe, expect, it } from 'vitest';
import { FIELD_MANAGER } from '../../model/contract.js';
import { TransportError } from '../../model/errors.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { KubeResult } from '../../model/kube-result.js';
import { gardenDryRun } from './garden-dry-run.js';

const object = (kind: string, name: string, apiVersion = 'v1') =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: ${name}, namespace: garden-dev}\n`;
const shoot = (name: string) => object('Shoot', name, 'core.gardener.cloud/v1beta1');

/** A Garden that refuses the objects named in `refuses`, and holds those named in `holds`. */
function garden(options: { refuses?: Record<string, KubeResult<unknown>>; holds?: string[] } = {}) {
  const calls: string[] = [];
  return {
    calls,
    label: 'test garden',
    apply: (applied: KubeObject, fieldManager: string, { dryRun }: { dryRun: boolean }) => {
      calls.push(`apply ${applied.kind}/${applied.metadata.name} ${fieldManager}${dryRun ? ' dry-run' : ''}`);
      return Promise.resolve(
        options.refuses?.[applied.metadata.name] ?? { ok: true as const, status: 200, body: applied },
      );
    },
    get: (ref: { kind: string; namespace?: string; name: string }) => {
      calls.push(`get ${ref.kind}/${ref.namespace}/${ref.name}`);
      return Promise.resolve<KubeResult<unknown>>(
        options.holds?.includes(ref.name)
          ? { ok: true, status: 200, body: {} }
          : { ok: false, status: 404, error: { message: 'not found' } },
      );
    },
  };
}

const files = new Map([
  ['shoots/a/shoot.yaml', shoot('a')],
  ['shoots/a/b-audit.yaml', object('ConfigMap', 'audit-a')],
  ['shoots/a/a-auth.yaml', object('ConfigMap', 'auth-a')],
  ['shoots/a/notes.md', 'not applied\n'],
  // Inside the cluster, not in the Garden: never dry-run there.
  ['shoots/a/skr/namespace-kyma-system.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kyma-system}\n'],
  ['shoots/b/shoot.yaml', shoot('b')],
]);
const report = (...shoots: [string, 'CREATE' | 'UPDATE' | 'DELETE'][]) => ({
  shoots: shoots.map(([path, operation]) => ({ path, operation, checks: 1 })),
});

describe('gardenDryRun', () => {
  it("applies each Shoot's companions first, then the Shoot, as the applier's field manager with dryRun", async () => {
    const live = garden({ holds: ['audit-a', 'auth-a'] });
    const findings = await gardenDryRun(live, files, report(['shoots/a/shoot.yaml', 'UPDATE']));
    expect(findings).toEqual([]);
    expect(live.calls).toEqual([
      `apply ConfigMap/auth-a ${FIELD_MANAGER} dry-run`,
      'get ConfigMap/garden-dev/auth-a',
      `apply ConfigMap/audit-a ${FIELD_MANAGER} dry-run`,
      'get ConfigMap/garden-dev/audit-a',
      `apply Shoot/a ${FIELD_MANAGER} dry-run`,
    ]);
  });

  it('does not dry-run a Shoot whose companion the Garden lacks yet, and warns why', async () => {
    const live = garden({ holds: ['audit-a'] });
    const findings = await gardenDryRun(live, files, report(['shoots/a/shoot.yaml', 'CREATE']));
    expect(findings).toEqual([
      {
        path: 'shoots/a/shoot.yaml',
        check: 'dry-run',
        severity: 'warn',
        message:
          'not checked by the Garden: it refers to ConfigMap auth-a, which the Garden gets only when the applier creates it (a dry-run creates nothing)',
      },
    ]);
    expect(live.calls).not.toContain(`apply Shoot/a ${FIELD_MANAGER} dry-run`);
  });

  it('neither dry-runs nor reads a registry cache stub (the applier creates its Secret), and warns why', async () => {
    const live = garden({ holds: ['audit-a', 'auth-a'] });
    const withStub = new Map([
      ...files,
      ['shoots/a/registry-cache/secret-reg-cache-1.yaml', object('Secret', 'reg-cache-1')],
    ]);
    const findings = await gardenDryRun(live, withStub, report(['shoots/a/shoot.yaml', 'UPDATE']));
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      [
        'warn',
        'not checked by the Garden: it refers to Secret reg-cache-1, which the Garden gets only when the applier creates it (a dry-run creates nothing)',
      ],
    ]);
    expect(live.calls.filter((call) => call.includes('Secret'))).toEqual([]);
  });

  it('denies what the Garden refuses, a companion or the Shoot, and skips deletes and files it cannot read', async () => {
    const refusal: KubeResult<unknown> = {
      ok: false,
      status: 422,
      error: { reason: 'Invalid', message: 'spec.provider.workers[0].machine.type: unknown' },
    };
    const live = garden({ refuses: { 'auth-a': refusal, b: refusal }, holds: ['audit-a'] });
    const broken = new Map([...files, ['shoots/c/shoot.yaml', 'kind: [\n']]);
    const findings = await gardenDryRun(
      live,
      broken,
      report(
        ['shoots/a/shoot.yaml', 'UPDATE'],
        ['shoots/b/shoot.yaml', 'CREATE'],
        ['shoots/c/shoot.yaml', 'CREATE'],
        ['shoots/d/shoot.yaml', 'DELETE'],
      ),
    );
    const denied = (path: string) => ({
      path,
      check: 'dry-run',
      severity: 'deny',
      message: 'the Garden refuses it: 422 Invalid: spec.provider.workers[0].machine.type: unknown',
    });
    expect(findings).toEqual([denied('shoots/a/a-auth.yaml'), denied('shoots/b/shoot.yaml')]);
    // A refused companion is no missing one: the Shoot is still dry-run.
    expect(live.calls).toContain(`apply Shoot/a ${FIELD_MANAGER} dry-run`);
    expect(live.calls).not.toContain('get ConfigMap/garden-dev/auth-a');
  });

  it('fails with a TransportError naming the Garden when it does not answer', async () => {
    const unreachable = garden({ refuses: { b: { ok: false, status: 0, error: { message: 'connection refused' } } } });
    const failed = gardenDryRun(unreachable, files, report(['shoots/b/shoot.yaml', 'CREATE']));
    await expect(failed).rejects.toThrow(TransportError);
    await expect(gardenDryRun(unreachable, files, report(['shoots/b/shoot.yaml', 'CREATE']))).rejects.toThrow(
      'kubeconfig test garden',
    );
  });
});
