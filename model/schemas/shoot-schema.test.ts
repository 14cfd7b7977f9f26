import { describe, expect, it } from 'vitest';
import { exampleRuntimes, LANDSCAPES, landscapeSettings, render } from '../../test/helpers/shoots.js';
import type { Shoot } from '../shoot.js';
import { SHOOT_COMPONENT } from './openapi-snapshot.js';
import { shootOpenApiSnapshot, validateShootSchema } from './shoot-schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at arbitrary fields
type Loose = any;

const rendered = LANDSCAPES.flatMap((landscape) => {
  const settings = landscapeSettings(landscape);
  return exampleRuntimes().map(({ file, runtime }) => ({
    name: `${landscape}/${file}`,
    shoot: render(runtime, settings).shoot,
  }));
});

function shoot(): Loose {
  const found = rendered.find((r) => r.name === 'dev/aws.yaml');
  if (!found) throw new Error('dev/aws.yaml was rendered');
  return structuredClone(found.shoot) as Loose;
}

const paths = (value: unknown) => validateShootSchema(value).map((p) => p.path);

describe('the snapshot', () => {
  it('names its source, its Gardener version and how to refresh it', () => {
    const snapshot = shootOpenApiSnapshot();
    expect(snapshot.gardenerVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(snapshot.root).toBe(SHOOT_COMPONENT);
    expect(snapshot.refresh).toContain('scripts/shoot-openapi-snapshot.ts');
    expect(Object.keys(snapshot.components)).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(Object.keys(snapshot.components)).toEqual(Object.keys(snapshot.components).sort());
  });
});

describe('validateShootSchema', () => {
  it('renders the 15 KEB examples for 3 landscapes', () => expect(rendered).toHaveLength(45));

  it.each(rendered.map((r) => [r.name, r.shoot] as const))(
    'accepts the Shoot rendered for %s',
    (_name, rendered: Shoot) => {
      expect(validateShootSchema(rendered)).toEqual([]);
    },
  );

  it('names a typo and the field probably meant', () => {
    const s = shoot();
    s.spec.provider.workers[0].maxSurg = 1;
    expect(validateShootSchema(s)).toEqual([
      {
        path: 'spec.provider.workers[0].maxSurg',
        message: 'unknown field "maxSurg"',
        fix: '"maxSurg" is not a field of Shoot at spec.provider.workers[0]; check its spelling (did you mean "maxSurge"?)',
        keyword: 'additionalProperties',
      },
    ]);
  });

  it('reports a wrong type', () => {
    const s = shoot();
    s.spec.provider.workers[0].maximum = '20';
    expect(validateShootSchema(s)).toEqual([
      { path: 'spec.provider.workers[0].maximum', message: 'must be integer, not string', keyword: 'type' },
    ]);
  });

  it('reports a missing required field', () => {
    const s = shoot();
    delete s.spec.provider.workers[0].name;
    expect(validateShootSchema(s)).toEqual([
      {
        path: 'spec.provider.workers[0].name',
        message: 'required field is missing',
        fix: 'set spec.provider.workers[0].name',
        keyword: 'required',
      },
    ]);
  });

  it('checks int32 ranges, as Go decodes them', () => {
    const s = shoot();
    s.spec.provider.workers[0].maximum = 2 ** 31;
    expect(validateShootSchema(s)).toMatchObject([
      { path: 'spec.provider.workers[0].maximum', message: 'must be a valid int32', keyword: 'format' },
    ]);
  });

  describe('int-or-string and quantities', () => {
    it.each([1, '1', '10%'])('accepts maxSurge %j', (value) => {
      const s = shoot();
      s.spec.provider.workers[0].maxSurge = value;
      expect(validateShootSchema(s)).toEqual([]);
    });

    it.each([[1.5], [true], [{}]])('refuses maxSurge %j with one problem', (value) => {
      const s = shoot();
      s.spec.provider.workers[0].maxSurge = value;
      expect(validateShootSchema(s)).toMatchObject([{ path: 'spec.provider.workers[0].maxSurge', keyword: 'oneOf' }]);
      expect(validateShootSchema(s)[0]?.message).toMatch(/^must be integer or string, not /);
    });

    it('takes a quantity as a string or a number', () => {
      const s = shoot();
      s.spec.provider.workers[0].kubernetes = { kubelet: { kubeReserved: { memory: '1Gi', cpu: 0.5 } } };
      expect(validateShootSchema(s)).toEqual([]);
      s.spec.provider.workers[0].kubernetes.kubelet.kubeReserved.cpu = true;
      expect(paths(s)).toEqual(['spec.provider.workers[0].kubernetes.kubelet.kubeReserved.cpu']);
    });
  });

  it('accepts any keys in maps, annotations and labels, and anything in provider configs', () => {
    const s = shoot();
    s.metadata.annotations = { ...s.metadata.annotations, 'any.example.com/key': 'v' };
    s.metadata.labels = { 'x.example.com/y': 'z' };
    s.spec.provider.workers[0].labels = { free: 'form' };
    s.spec.provider.infrastructureConfig = { ...s.spec.provider.infrastructureConfig, whatever: { nested: [1, null] } };
    expect(validateShootSchema(s)).toEqual([]);
    s.metadata.labels = { 'x.example.com/y': 1 };
    expect(paths(s)).toEqual(['metadata.labels["x.example.com/y"]']);
  });

  it('checks date-time fields', () => {
    const s = shoot();
    s.metadata.creationTimestamp = 'yesterday';
    expect(validateShootSchema(s)).toMatchObject([{ path: 'metadata.creationTimestamp', keyword: 'format' }]);
  });

  it('treats __proto__ keys as unknown fields', () => {
    const s = JSON.parse(JSON.stringify(shoot()).replace('"spec":{', '"spec":{"__proto__":{"polluted":true},'));
    expect(paths(s)).toEqual(['spec.__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
