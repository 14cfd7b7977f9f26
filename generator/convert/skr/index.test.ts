import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../model/runtime.js';
import { testShoot } from '../../../test/helpers/test-shoot.js';
import { skrObjects } from './index.js';

const runtime = () =>
  parse(readFileSync(new URL('../../../examples/runtimes/keb/aws.yaml', import.meta.url), 'utf8')) as Runtime;
const shoot = () => {
  const s = testShoot();
  s.spec.extensions = [{ type: 'shoot-oidc-service', disabled: false }];
  return s;
};

describe('skrObjects', () => {
  it("in KIM's order: the kyma-system Namespace (bare, as KIM creates it), kyma-provisioning-info, OIDC, administrators", () => {
    const objects = skrObjects({ runtime: runtime(), shoot: shoot() });
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'Namespace /kyma-system',
      'ConfigMap kyma-system/kyma-provisioning-info',
      'OpenIDConnect /kyma-oidc-0',
      expect.stringMatching(/^ClusterRoleBinding \/admin-[0-9a-f]{10}$/),
    ]);
    expect(objects[0]).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } });
  });

  it('names the field of a Runtime whose SKR fields are malformed, never crashes', () => {
    const broken = runtime() as unknown as { spec: { security: { administrators: unknown } } };
    broken.spec.security.administrators = 'admin@example.com';
    expect(() => skrObjects({ runtime: broken as unknown as Runtime, shoot: shoot() })).toThrow(
      expect.objectContaining({ field: 'spec.security.administrators' }) as Error,
    );
    const oidc = runtime();
    oidc.spec.shoot.kubernetes = { kubeAPIServer: { additionalOidcConfig: [{ clientID: 1 as unknown as string }] } };
    expect(() => skrObjects({ runtime: oidc, shoot: shoot() })).toThrow(
      expect.objectContaining({
        field: 'spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig[0].clientID',
      }) as Error,
    );
  });
});
