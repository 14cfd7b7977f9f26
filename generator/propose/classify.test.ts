import { describe, expect, it } from 'vitest';
import type { Shoot } from '../../model/shoot.js';
import { classifyChange, isBookkeeping } from './classify.js';
import { changed, extension, testShoot, worker } from '../../test/helpers/test-shoot.js';

describe('classifyChange', () => {
  it('has nothing to classify when the Shoots are equal', () => {
    expect(classifyChange({ before: testShoot(), after: testShoot() })).toBeUndefined();
  });

  it('classifies a Shoot without a before as create and one without an after as delete', () => {
    expect(classifyChange({ after: testShoot() })).toMatchObject({ class: 'create', disruptive: false });
    expect(classifyChange({ before: testShoot(), runtimeDeleted: true })).toMatchObject({
      class: 'delete',
      disruptive: false,
    });
  });

  it('marks a delete the Runtime did not ask for as disruptive and says so', () => {
    const result = classifyChange({ before: testShoot(), runtimeDeleted: false });
    expect(result).toMatchObject({ class: 'delete', disruptive: true });
    expect(result?.reasons[0]).toContain('no Runtime asked for this delete');
  });

  it.each<[string, (s: Shoot) => void, string]>([
    [
      'region',
      (s) => {
        s.spec.region = 'eu-west-1';
      },
      'spec.region eu-central-1 → eu-west-1: Gardener does not allow changing it',
    ],
    [
      'provider type',
      (s) => {
        s.spec.provider.type = 'gcp';
      },
      'spec.provider.type aws → gcp',
    ],
    [
      'cloud profile',
      (s) => {
        s.spec.cloudProfile = { kind: 'CloudProfile', name: 'aws-2' };
      },
      'spec.cloudProfile.name aws → aws-2',
    ],
    [
      'networking type',
      (s) => {
        s.spec.networking.type = 'cilium';
      },
      'spec.networking.type calico → cilium',
    ],
    [
      'pods CIDR',
      (s) => {
        s.spec.networking.pods = '100.96.0.0/11';
      },
      'spec.networking.pods',
    ],
    [
      'services CIDR',
      (s) => {
        s.spec.networking.services = '100.64.0.0/13';
      },
      'spec.networking.services',
    ],
    [
      'nodes CIDR',
      (s) => {
        s.spec.networking.nodes = '10.180.0.0/16';
      },
      'spec.networking.nodes 10.250.0.0/16 → 10.180.0.0/16: the infrastructure',
    ],
    [
      'IPv6 only',
      (s) => {
        s.spec.networking.ipFamilies = ['IPv6'];
      },
      'spec.networking.ipFamilies (unset) → ["IPv6"]',
    ],
    [
      'another secret binding',
      (s) => {
        s.spec.secretBindingName = 'aws-2';
      },
      'spec.secretBindingName aws-1 → aws-2',
    ],
    [
      'a secret binding dropped without credentials binding',
      (s) => {
        delete s.spec.secretBindingName;
      },
      'spec.secretBindingName aws-1 → (unset)',
    ],
    [
      'a Kubernetes downgrade',
      (s) => {
        s.spec.kubernetes.version = '1.31.9';
      },
      'spec.kubernetes.version 1.32.5 → 1.31.9: Gardener does not allow a Kubernetes downgrade',
    ],
    [
      'a skipped minor',
      (s) => {
        s.spec.kubernetes.version = '1.34.0';
      },
      'does not allow skipping a minor version',
    ],
    [
      'a removed zone',
      (s) => {
        worker(s, 'a').zones = ['z2'];
      },
      'spec.provider.workers[a].zones ["z1","z2"] → ["z2"]: zones may only be appended',
    ],
    [
      'reordered zones',
      (s) => {
        worker(s, 'a').zones = ['z2', 'z1'];
      },
      'spec.provider.workers[a].zones',
    ],
    [
      'a switch to in-place updates',
      (s) => {
        worker(s, 'a').updateStrategy = 'AutoInPlaceUpdate';
      },
      'spec.provider.workers[a].updateStrategy (unset) → AutoInPlaceUpdate',
    ],
    [
      'a DNS domain',
      (s) => {
        s.spec.dns = { ...s.spec.dns, domain: 'other.example' };
      },
      'spec.dns.domain',
    ],
    [
      'a workerless Shoot',
      (s) => {
        s.spec.provider.workers = [];
      },
      'workerless',
    ],
  ])('blocks a change of %s as immutable, naming the field', (_what, edit, reason) => {
    const result = classifyChange({ before: testShoot(), after: changed(edit) });
    expect(result?.class).toBe('immutable');
    expect(result?.reasons.join('\n')).toContain(reason);
  });

  it('lets the migration from secretBindingName to credentialsBindingName through', () => {
    const after = changed((s) => {
      delete s.spec.secretBindingName;
      s.spec.credentialsBindingName = 'aws-1';
    });
    expect(classifyChange({ before: testShoot(), after })).toMatchObject({ class: 'update', disruptive: false });
  });

  it("writing down Gardener's default IPv4 (unset → [IPv4]) is no dual-stack migration: not disruptive", () => {
    const result = classifyChange({
      before: changed((s) => {
        delete s.spec.networking.ipFamilies;
      }),
      after: changed((s) => {
        s.spec.networking.ipFamilies = ['IPv4'];
        s.spec.provider.workers[0] = {
          ...s.spec.provider.workers[0],
          maximum: 25,
        } as (typeof s.spec.provider.workers)[0];
      }),
    });
    expect(result).toMatchObject({ class: 'update', disruptive: false });
  });

  it('lets IPv4 become dual-stack, as a disruptive update', () => {
    const after = changed((s) => {
      s.spec.networking.ipFamilies = ['IPv4', 'IPv6'];
    });
    const result = classifyChange({ before: testShoot(), after });
    expect(result).toMatchObject({ class: 'update', disruptive: true });
    expect(result?.reasons[0]).toContain('dual-stack');
  });

  it.each<[string, (s: Shoot) => void, string]>([
    [
      'a Kubernetes minor bump',
      (s) => {
        s.spec.kubernetes.version = '1.33.3';
      },
      'spec.kubernetes.version 1.32.5 → 1.33.3: a new Kubernetes minor version replaces every node',
    ],
    [
      'a machine type',
      (s) => {
        worker(s, 'b').machine.type = 'm6i.2xlarge';
      },
      'spec.provider.workers[b].machine.type m6i.xlarge → m6i.2xlarge',
    ],
    [
      'a machine image name',
      (s) => {
        worker(s, 'a').machine.image = { name: 'suse-chost', version: '15.6' };
      },
      'spec.provider.workers[a].machine.image.name gardenlinux → suse-chost',
    ],
    [
      'a machine image version',
      (s) => {
        worker(s, 'a').machine.image = { name: 'gardenlinux', version: '1877.5.0' };
      },
      'spec.provider.workers[a].machine.image.version 1877.4.0 → 1877.5.0',
    ],
    [
      'an added zone',
      (s) => {
        worker(s, 'a').zones = ['z1', 'z2', 'z3'];
      },
      'spec.provider.workers[a].zones: adds z3',
    ],
    [
      'a removed worker',
      (s) => {
        s.spec.provider.workers.pop();
      },
      'spec.provider.workers[b] removed: its nodes are drained',
    ],
    [
      'a volume',
      (s) => {
        worker(s, 'a').volume = { size: '100Gi' };
      },
      'spec.provider.workers[a].volume',
    ],
  ])('marks %s as a disruptive update', (_what, edit, reason) => {
    const result = classifyChange({ before: testShoot(), after: changed(edit) });
    expect(result).toMatchObject({ class: 'update', disruptive: true });
    expect(result?.reasons.join('\n')).toContain(reason);
  });

  it.each<[string, (s: Shoot) => void]>([
    [
      'a Kubernetes patch bump',
      (s) => {
        s.spec.kubernetes.version = '1.32.9';
      },
    ],
    [
      'scaling limits',
      (s) => {
        worker(s, 'a').maximum = 10;
        worker(s, 'a').minimum = 2;
      },
    ],
    [
      'surge settings',
      (s) => {
        worker(s, 'a').maxSurge = 2;
        worker(s, 'a').maxUnavailable = 1;
      },
    ],
    [
      'an extension toggle',
      (s) => {
        extension(s, 'shoot-dns-service').disabled = true;
      },
    ],
    [
      'an added worker',
      (s) => {
        s.spec.provider.workers.push({ name: 'c', machine: { type: 'm6i.large' }, minimum: 0, maximum: 1 });
      },
    ],
    [
      'a label and a spec field together',
      (s) => {
        s.metadata.labels = { ...s.metadata.labels, x: 'y' };
        worker(s, 'a').maximum = 4;
      },
    ],
  ])('marks %s as a non-disruptive update', (_what, edit) => {
    const result = classifyChange({ before: testShoot(), after: changed(edit) });
    expect(result).toMatchObject({ class: 'update', disruptive: false });
    expect(result?.reasons[0]).toMatch(/^no node is replaced: (metadata|spec)\./);
  });

  it('classifies a change of labels and annotations only as metadata-only', () => {
    const after = changed((s) => {
      s.metadata.annotations = {
        ...s.metadata.annotations,
        'infrastructuremanager.kyma-project.io/runtime-generation': '4',
      };
      s.metadata.labels = { ...s.metadata.labels, x: 'y' };
    });
    const result = classifyChange({ before: testShoot(), after });
    expect(result).toMatchObject({ class: 'metadata-only', disruptive: false });
    // The generation KIM records is bookkeeping: in the diff, but no reason of the class.
    expect(result?.reasons).toEqual(['only metadata changes: metadata.labels.x']);
    expect(result?.changes.map((c) => c.path)).toContain(
      'metadata.annotations["infrastructuremanager.kyma-project.io/runtime-generation"]',
    );
  });

  it("names only the fields a reviewer reads, not KIM's generation, among an update's reasons", () => {
    const after = changed((s) => {
      s.metadata.annotations = { 'infrastructuremanager.kyma-project.io/runtime-generation': '4' };
      worker(s, 'a').maximum = 4;
    });
    expect(classifyChange({ before: testShoot(), after })?.reasons).toEqual([
      'no node is replaced: spec.provider.workers[a].maximum',
    ]);
  });

  it('says so when a Shoot differs only in its bookkeeping', () => {
    const after = changed((s) => {
      s.metadata.annotations = {
        'infrastructuremanager.kyma-project.io/runtime-generation': '4',
        'kimops.kyma-project.io/applied-commit': 'abc',
      };
    });
    expect(classifyChange({ before: testShoot(), after })).toMatchObject({
      class: 'metadata-only',
      reasons: [
        'nothing in the cluster changes: the Shoot only records the Runtime generation it was rendered from (3 → 4)',
      ],
    });
  });

  it('returns the semantic diff with the class, for the PR body', () => {
    const after = changed((s) => {
      worker(s, 'a').maximum = 4;
    });
    expect(classifyChange({ before: testShoot(), after })?.changes).toEqual([
      { path: 'spec.provider.workers[a].maximum', kind: 'changed', before: 3, after: 4 },
    ]);
  });
});

describe('isBookkeeping', () => {
  it.each<[string, boolean]>([
    ['metadata.annotations["infrastructuremanager.kyma-project.io/runtime-generation"]', true],
    ['metadata.annotations["kimops.kyma-project.io/applied-tree"]', true],
    ['metadata.labels["kimops.kyma-project.io/managed-by"]', true],
    ['metadata.annotations["infrastructuremanager.kyma-project.io/runtime-id"]', false],
    ['metadata.annotations["infrastructuremanager.kyma-project.io/licence-type"]', false],
    ['spec.kubernetes.version', false],
  ])('%s: %s', (path, expected) => {
    expect(isBookkeeping({ path, kind: 'changed', before: '1', after: '2' })).toBe(expected);
  });
});
