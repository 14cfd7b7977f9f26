import { describe, expect, it } from 'vitest';
import type { Shoot } from '../model/shoot.js';
import { semanticDiff } from './semantic-diff.js';
import { changed, extension, testShoot, worker } from '../test/helpers/test-shoot.js';

describe('semanticDiff', () => {
  it('finds nothing between equal Shoots, whatever their key order', () => {
    const reordered = changed((s) => {
      s.spec = Object.fromEntries(Object.entries(s.spec).reverse()) as Shoot['spec'];
    });
    expect(semanticDiff(testShoot(), reordered)).toEqual([]);
  });

  it.each<[string, (s: Shoot) => void, object[]]>([
    [
      'a worker field, by worker name',
      (s) => {
        worker(s, 'b').maximum = 9;
      },
      [{ path: 'spec.provider.workers[b].maximum', kind: 'changed', before: 5, after: 9 }],
    ],
    [
      'an extension field, by type',
      (s) => {
        extension(s, 'shoot-auditlog-service').providerConfig = { tenantID: 't-2' };
      },
      [
        {
          path: 'spec.extensions[shoot-auditlog-service].providerConfig.tenantID',
          kind: 'changed',
          before: 't-1',
          after: 't-2',
        },
      ],
    ],
    [
      'a resource, by name',
      (s) => {
        s.spec.resources = [
          { name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 's-2' } },
        ];
      },
      [{ path: 'spec.resources[auditlog-credentials].resourceRef.name', kind: 'changed', before: 's-1', after: 's-2' }],
    ],
    [
      'a toleration, by key',
      (s) => {
        s.spec.tolerations = [{ key: 'ksa' }, { key: 'other', value: 'x' }];
      },
      [{ path: 'spec.tolerations[other]', kind: 'added', after: { key: 'other', value: 'x' } }],
    ],
    [
      'an access restriction, by name',
      (s) => {
        s.spec.accessRestrictions = [{ name: 'eu-access-only' }];
      },
      [{ path: 'spec.accessRestrictions', kind: 'added', after: [{ name: 'eu-access-only' }] }],
    ],
    [
      'a zone added to a set',
      (s) => {
        worker(s, 'a').zones = ['z1', 'z2', 'z3'];
      },
      [{ path: 'spec.provider.workers[a].zones[z3]', kind: 'added', after: 'z3' }],
    ],
    [
      'a zone removed from a set',
      (s) => {
        worker(s, 'a').zones = ['z2'];
      },
      [{ path: 'spec.provider.workers[a].zones[z1]', kind: 'removed', before: 'z1' }],
    ],
    [
      'zones reordered',
      (s) => {
        worker(s, 'a').zones = ['z2', 'z1'];
      },
      [{ path: 'spec.provider.workers[a].zones (order)', kind: 'changed', before: ['z1', 'z2'], after: ['z2', 'z1'] }],
    ],
    [
      'an unnamed list, by position',
      (s) => {
        s.spec.dns = { ...s.spec.dns, providers: [{ type: 'aws-route53', primary: false }] };
      },
      [{ path: 'spec.dns.providers[0].primary', kind: 'changed', before: true, after: false }],
    ],
    [
      'a label with a dotted key',
      (s) => {
        s.metadata.labels = { ...s.metadata.labels, 'kyma-project.io/region': 'eu-west-1' };
      },
      [
        {
          path: 'metadata.labels["kyma-project.io/region"]',
          kind: 'changed',
          before: 'eu-central-1',
          after: 'eu-west-1',
        },
      ],
    ],
    [
      'a removed field',
      (s) => {
        delete s.spec.secretBindingName;
      },
      [{ path: 'spec.secretBindingName', kind: 'removed', before: 'aws-1' }],
    ],
  ])('reports %s', (_what, edit, expected) => {
    expect(semanticDiff(testShoot(), changed(edit))).toEqual(expected);
  });

  it('reports removing the first of two workers as that worker removed, not as shifted indexes', () => {
    const after = changed((s) => {
      s.spec.provider.workers.shift();
    });
    const changes = semanticDiff(testShoot(), after);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ path: 'spec.provider.workers[a]', kind: 'removed' });
    expect((changes[0]?.before as { name: string }).name).toBe('a');
  });

  it('reports an added worker whole, under its name', () => {
    const after = changed((s) => {
      s.spec.provider.workers.push({ name: 'gpu', machine: { type: 'g5.xlarge' }, minimum: 0, maximum: 1 });
    });
    expect(semanticDiff(testShoot(), after).map((c) => `${c.path} ${c.kind}`)).toEqual([
      'spec.provider.workers[gpu] added',
    ]);
  });

  it('reports workers that only change places as an order change', () => {
    const after = changed((s) => {
      s.spec.provider.workers.reverse();
    });
    expect(semanticDiff(testShoot(), after)).toEqual([
      { path: 'spec.provider.workers (order)', kind: 'changed', before: ['a', 'b'], after: ['b', 'a'] },
    ]);
  });

  it('falls back to positions when names repeat', () => {
    const before = changed((s) => {
      worker(s, 'b').name = 'a';
    });
    const after = changed((s) => {
      worker(s, 'b').maximum = 7;
      worker(s, 'b').name = 'a';
    });
    expect(semanticDiff(before, after).map((c) => c.path)).toEqual(['spec.provider.workers[1].maximum']);
  });

  it('quotes an all-digit item name so it cannot be read as an index', () => {
    const before = changed((s) => {
      worker(s, 'a').name = '0';
    });
    const after = changed((s) => {
      worker(s, 'a').minimum = 2;
      worker(s, 'a').name = '0';
    });
    expect(semanticDiff(before, after).map((c) => c.path)).toEqual(['spec.provider.workers["0"].minimum']);
  });

  it('ignores status and server-set metadata', () => {
    const live = changed((s) => {
      s.metadata = {
        ...s.metadata,
        uid: 'u',
        resourceVersion: '7',
        generation: 4,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [],
      } as Shoot['metadata'];
      s.status = { observedGeneration: 4 };
    });
    expect(semanticDiff(live, testShoot())).toEqual([]);
  });

  it('lists every leaf of a created Shoot, keyed like an update', () => {
    const changes = semanticDiff(undefined, testShoot());
    expect(changes.every((c) => c.kind === 'added' && c.before === undefined)).toBe(true);
    expect(changes).toContainEqual({ path: 'spec.provider.workers[b].maximum', kind: 'added', after: 5 });
    expect(changes).toContainEqual({ path: 'spec.provider.workers[a].zones[z2]', kind: 'added', after: 'z2' });
    expect(changes).toContainEqual({
      path: 'spec.extensions[shoot-dns-service].type',
      kind: 'added',
      after: 'shoot-dns-service',
    });
  });

  it('lists every leaf of a deleted Shoot as removed', () => {
    const changes = semanticDiff(testShoot(), undefined);
    expect(changes.length).toBeGreaterThan(20);
    expect(changes.every((c) => c.kind === 'removed' && c.after === undefined)).toBe(true);
    expect(changes).toContainEqual({ path: 'spec.region', kind: 'removed', before: 'eu-central-1' });
  });

  it('gives the same output for the same input', () => {
    const after = changed((s) => {
      worker(s, 'a').maximum = 4;
      s.spec.extensions?.reverse();
    });
    expect(JSON.stringify(semanticDiff(testShoot(), after))).toBe(
      JSON.stringify(semanticDiff(testShoot(), structuredClone(after))),
    );
  });
});
