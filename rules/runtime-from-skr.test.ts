import { describe, expect, it } from 'vitest';
import { administratorBindings } from '../generator/convert/skr/administrators.js';
import { openIdConnects } from '../generator/convert/skr/openid-connect.js';
import type { KubeObject } from '../model/kube-object.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import { additionalOidcOf, administratorsOf } from './runtime-from-skr.js';

describe('the Runtime fields only its cluster holds', () => {
  it("reads the administrators back from KIM's bindings, each once, and only cluster-admin Users", () => {
    const runtime = exampleRuntime('aws.yaml');
    runtime.spec.security.administrators = ['zoe@example.com', 'adam@example.com', 'zoe@example.com'];
    const bindings = administratorBindings(runtime);
    const other: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'view' },
      subjects: [{ kind: 'User', name: 'viewer@example.com' }],
      roleRef: { kind: 'ClusterRole', name: 'view' },
    };
    const group: KubeObject = {
      ...other,
      metadata: { name: 'group' },
      subjects: [{ kind: 'Group', name: 'admins' }],
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
    };
    expect(administratorsOf([...bindings, other, group])).toEqual(['adam@example.com', 'zoe@example.com']);
  });

  it("reads the additional OIDC providers back from KIM's OpenIDConnects, in their order", () => {
    const settings = landscapeSettings('dev');
    const runtime = exampleRuntime('azure.yaml');
    const [first] = runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig ?? [];
    if (!first) throw new Error('the example has no additional OIDC provider');
    const second = { ...first, clientID: 'second', requiredClaims: { aud: 'kyma' } };
    const list = Array.from({ length: 11 }, (_, i) => (i === 10 ? second : { ...first, clientID: `c${i}` }));
    runtime.spec.shoot.kubernetes = { kubeAPIServer: { additionalOidcConfig: list } };
    const objects = openIdConnects(runtime, render(runtime, settings).shoot, settings.skrDefaultOidc);
    expect(objects.map((o) => o.metadata.name).at(-1)).toBe('kyma-oidc-10');
    expect(additionalOidcOf([...objects].reverse())).toEqual(list);
  });
});
