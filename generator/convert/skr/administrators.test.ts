import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../../model/errors.js';
import type { Runtime } from '../../../model/runtime.js';
import { administratorBindingName, administratorBindings } from './administrators.js';

const runtime = (administrators: string[]): Runtime => {
  const r = parse(readFileSync(new URL('../../../examples/runtimes/keb/aws.yaml', import.meta.url), 'utf8')) as Runtime;
  r.spec.security.administrators = administrators;
  return r;
};

describe('administratorBindings', () => {
  it("binds each administrator to cluster-admin as KIM does: its label, a User subject, KIM's prefix", () => {
    expect(administratorBindings(runtime(['alice@example.com']))).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: {
          name: `admin-${createHash('sha256').update('alice@example.com').digest('hex').slice(0, 10)}`,
          labels: { 'reconciler.kyma-project.io/managed-by': 'infrastructure-manager' },
        },
        subjects: [{ kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      },
    ]);
  });

  it('names a binding after its user alone: stable across renders, one per user, whatever the order', () => {
    expect(administratorBindingName('alice@example.com')).toMatch(/^admin-[0-9a-f]{10}$/);
    expect(administratorBindingName('alice@example.com')).not.toBe(administratorBindingName('bob@example.com'));
    const names = (users: string[]) => administratorBindings(runtime(users)).map((b) => b.metadata.name);
    expect(names(['bob@example.com', 'alice@example.com']).sort()).toEqual(
      names(['alice@example.com', 'bob@example.com']).sort(),
    );
    expect(names(['alice@example.com', 'alice@example.com'])).toHaveLength(1);
  });

  it('binds nobody for a Runtime without administrators', () => {
    expect(administratorBindings(runtime([]))).toEqual([]);
  });

  it('refuses an empty user name, naming the entry', () => {
    expect(() => administratorBindings(runtime(['alice@example.com', '']))).toThrow(
      expect.objectContaining({ field: 'spec.security.administrators[1]' }) as FieldError,
    );
  });
});
