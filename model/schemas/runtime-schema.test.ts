import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseYaml11, parseYamlDocuments } from '../yaml-input.js';
import { validateRuntimeSchema } from './runtime-schema.js';

const EXAMPLES = new URL('../../examples/runtimes/keb/', import.meta.url);
const exampleFiles = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at arbitrary fields
function example(file = 'aws.yaml'): any {
  return parseYaml11(readFileSync(new URL(file, EXAMPLES), 'utf8'), file);
}

const paths = (runtime: unknown) => validateRuntimeSchema(runtime).map((p) => p.path);

describe('validateRuntimeSchema', () => {
  it.each(exampleFiles)('accepts KEB example %s', (file) => {
    expect(validateRuntimeSchema(example(file))).toEqual([]);
  });

  it('names an unknown field, why it is refused and the field probably meant', () => {
    const runtime = example();
    runtime.spec.shoot.provider.workers[0].maximun = 5;
    expect(validateRuntimeSchema(runtime)).toEqual([
      {
        path: 'spec.shoot.provider.workers[0].maximun',
        message: 'unknown field "maximun"',
        fix: '"maximun" is not a field of Runtime at spec.shoot.provider.workers[0]; check its spelling (did you mean "maximum"?)',
        keyword: 'additionalProperties',
      },
    ]);
  });

  it('refuses unknown fields at the top, in metadata and in fields declared as objects without properties', () => {
    const runtime = example();
    runtime.specs = {};
    runtime.metadata.lables = {};
    expect(paths(runtime)).toEqual(['specs', 'metadata.lables']);
  });

  it('reports a wrong type with the type found', () => {
    const runtime = example();
    runtime.spec.shoot.provider.workers[0].maximum = '20';
    expect(validateRuntimeSchema(runtime)).toEqual([
      { path: 'spec.shoot.provider.workers[0].maximum', message: 'must be integer, not string', keyword: 'type' },
    ]);
  });

  it('reports a missing required field with its full path', () => {
    const runtime = example();
    delete runtime.spec.shoot.networking.pods;
    expect(validateRuntimeSchema(runtime)).toEqual([
      {
        path: 'spec.shoot.networking.pods',
        message: 'required field is missing',
        fix: 'set spec.shoot.networking.pods',
        keyword: 'required',
      },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    const runtime = example();
    runtime.spec.shoot.provider.type = 'AWS';
    expect(validateRuntimeSchema(runtime)).toEqual([
      {
        path: 'spec.shoot.provider.type',
        message: 'must be one of "aws", "azure", "gcp", "openstack", "alicloud", "gdch"',
        keyword: 'enum',
      },
    ]);
  });

  describe('int-or-string', () => {
    it.each([3, '3', '25%', 0])('accepts maxSurge %j', (value) => {
      const runtime = example();
      runtime.spec.shoot.provider.workers[0].maxSurge = value;
      expect(validateRuntimeSchema(runtime)).toEqual([]);
    });

    it.each([
      [1.5, 'must be integer or string, not number'],
      [true, 'must be integer or string, not boolean'],
      [[3], 'must be integer or string, not array'],
      [1e20, 'must be integer or string, not number'],
    ])('refuses maxSurge %j with one problem', (value, message) => {
      const runtime = example();
      runtime.spec.shoot.provider.workers[0].maxSurge = value;
      expect(validateRuntimeSchema(runtime)).toEqual([
        { path: 'spec.shoot.provider.workers[0].maxSurge', message, keyword: 'anyOf' },
      ]);
    });

    it('checks a quantity string against its pattern, not an integer', () => {
      const runtime = example();
      runtime.spec.shoot.provider.workers[0].kubernetes = { kubelet: { kubeReserved: { memory: '1Gb' } } };
      expect(paths(runtime)).toEqual(['spec.shoot.provider.workers[0].kubernetes.kubelet.kubeReserved.memory']);
      runtime.spec.shoot.provider.workers[0].kubernetes.kubelet.kubeReserved.memory = 1024;
      expect(paths(runtime)).toEqual([]);
    });
  });

  it('refuses integers the API server would read as floats', () => {
    const runtime = example();
    runtime.spec.shoot.provider.workers[0].maximum = 2 ** 64;
    expect(validateRuntimeSchema(runtime)).toMatchObject([
      { path: 'spec.shoot.provider.workers[0].maximum', keyword: 'x-kimops-int64' },
    ]);
    runtime.spec.shoot.provider.workers[0].maximum = 2 ** 40; // int32 in KIM's Go type, but the API server does not check number formats
    expect(validateRuntimeSchema(runtime)).toEqual([]);
  });

  it('checks format byte as the API server does: base64, not empty, one line', () => {
    const runtime = example();
    const oidc = runtime.spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig[0];
    for (const [jwks, valid] of [
      ['YQ==', true],
      ['', false],
      ['YQ', false],
      ['YWJj\nYWJj', false],
    ] as const) {
      oidc.jwks = jwks;
      expect(validateRuntimeSchema(runtime).length === 0, JSON.stringify(jwks)).toBe(valid);
    }
  });

  it('accepts anything under x-kubernetes-preserve-unknown-fields', () => {
    const runtime = example();
    runtime.spec.shoot.provider.workers[0].providerConfig = {
      anything: { goes: [1, 'two', null, { deep: true }] },
      __proto__x: 1,
    };
    runtime.spec.shoot.provider.workers[0].machine.image.providerConfig = {
      apiVersion: 'x/v1',
      kind: 'Whatever',
      nested: { a: [] },
    };
    expect(validateRuntimeSchema(runtime)).toEqual([]);
  });

  it('drops nulls and applies defaults before checking, as the API server does', () => {
    const runtime = example();
    runtime.spec.shoot.enforceSeedLocation = null; // optional: pruned
    runtime.spec.imageRegistryCache = [
      { name: 'c', namespace: 'n', uid: 'u', config: { upstream: 'r.io', garbageCollection: {} } },
    ]; // required ttl has a default
    expect(validateRuntimeSchema(runtime)).toEqual([]);
    runtime.spec.shoot.region = null; // required: pruned, then missing
    expect(paths(runtime)).toEqual(['spec.shoot.region']);
    runtime.spec.shoot.region = 'eu-central-1';
    runtime.spec.shoot.provider.workers[0].zones.push(null); // list items are not pruned
    expect(paths(runtime)).toEqual(['spec.shoot.provider.workers[0].zones[3]']);
  });

  it('does not change the object it checks', () => {
    const runtime = example();
    runtime.spec.imageRegistryCache = [{ name: 'c', namespace: 'n', uid: 'u', config: { garbageCollection: {} } }];
    const before = structuredClone(runtime);
    validateRuntimeSchema(runtime);
    expect(runtime).toEqual(before);
  });

  it('prints label keys in brackets', () => {
    const runtime = example();
    runtime.metadata.labels['kyma-project.io/region'] = 3;
    expect(paths(runtime)).toEqual(['metadata.labels["kyma-project.io/region"]']);
  });

  describe('hostile input', () => {
    it('treats __proto__ and constructor keys as unknown fields, never as prototypes', () => {
      const runtime = JSON.parse(
        JSON.stringify(example()).replace('"shoot":{', '"shoot":{"__proto__":{"polluted":true},"constructor":1,'),
      );
      expect(paths(runtime)).toEqual(['spec.shoot.__proto__', 'spec.shoot.constructor']);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('reads __proto__ keys from YAML as data', () => {
      const runtime = parseYaml11(
        readFileSync(new URL('aws.yaml', EXAMPLES), 'utf8').replace(
          'spec:\n',
          'spec:\n  __proto__:\n    polluted: true\n',
        ),
        'aws.yaml',
      );
      expect(paths(runtime)).toEqual(['spec.__proto__']);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('does not crash on a YAML alias bomb: the reader refuses it before the schema sees it', () => {
      const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (let i = 1; i < 9; i++)
        levels.push(
          `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)}]`,
        );
      const [document] = parseYamlDocuments(
        `apiVersion: v1\nkind: Runtime\nspec:\n  bomb:\n${levels.map((l) => `    ${l}`).join('\n')}\n`,
        'bomb.yaml',
      );
      expect(document?.error).toBeInstanceOf(ConfigError);
    });

    it.each([[null], ['a string'], [42], [[]], [[1, 2]]])('reports %j at the top as a wrong type', (value) => {
      expect(validateRuntimeSchema(value)).toMatchObject([{ path: '', keyword: 'type' }]);
    });

    it('checks a deeply nested unknown subtree without recursing into it', () => {
      let deep: unknown = 'leaf';
      for (let i = 0; i < 5000; i++) deep = { d: deep };
      const runtime = example();
      runtime.spec.shoot.provider.workers[0].providerConfig = deep;
      runtime.spec.shoot.provider.workerz = deep;
      expect(paths(runtime)).toEqual(['spec.shoot.provider.workerz']);
    });
  });

  it('is fast once compiled', () => {
    const runtimes = exampleFiles.map((file) => example(file));
    validateRuntimeSchema(runtimes[0]);
    const start = performance.now();
    for (let i = 0; i < 2000; i++) validateRuntimeSchema(runtimes[i % runtimes.length]);
    // Generous for a shared 2-core machine; a few microseconds each in practice.
    expect(performance.now() - start).toBeLessThan(2000);
  });
});
