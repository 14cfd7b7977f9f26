import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { OidcProviderConfig } from '../../../model/converter-config.js';
import type { OidcConfig, Runtime } from '../../../model/runtime.js';
import type { Shoot } from '../../../model/shoot.js';
import { testShoot } from '../../../test/helpers/test-shoot.js';
import { openIdConnects } from './openid-connect.js';

const DEFAULT: OidcProviderConfig = {
  clientID: 'default-client',
  groupsClaim: 'groups',
  issuerURL: 'https://default.example',
  signingAlgs: ['RS256'],
  usernameClaim: 'sub',
  usernamePrefix: '-',
};

function runtime(additionalOidcConfig?: OidcConfig[]): Runtime {
  const r = parse(readFileSync(new URL('../../../examples/runtimes/keb/aws.yaml', import.meta.url), 'utf8')) as Runtime;
  r.spec.shoot.kubernetes = { kubeAPIServer: { ...(additionalOidcConfig && { additionalOidcConfig }) } };
  return r;
}

/** A Shoot whose shoot-oidc-service extension is as given; undefined: the Shoot has none. */
function shoot(oidc?: { disabled?: boolean }): Shoot {
  const s = testShoot();
  s.spec.extensions = [{ type: 'shoot-dns-service' }, ...(oidc ? [{ type: 'shoot-oidc-service', ...oidc }] : [])];
  return s;
}

const specs = (r: Runtime, s = shoot({ disabled: false }), d: OidcProviderConfig | undefined = DEFAULT) =>
  openIdConnects(r, s, d).map((o) => [o.metadata.name, o['spec']]);

describe('openIdConnects', () => {
  it("the landscape's default when the Runtime sets none: KIM's ToOIDCConfig, every string field written", () => {
    const [object] = openIdConnects(runtime(), shoot({ disabled: false }), DEFAULT);
    expect(object).toEqual({
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind: 'OpenIDConnect',
      metadata: { name: 'kyma-oidc-0', labels: { 'operator.kyma-project.io/managed-by': 'infrastructure-manager' } },
      spec: {
        issuerURL: 'https://default.example',
        clientID: 'default-client',
        usernameClaim: 'sub',
        usernamePrefix: '-',
        groupsClaim: 'groups',
        supportedSigningAlgs: ['RS256'],
        jwks: {},
      },
    });
    // A field the landscape leaves out is KIM's "" (a set pointer), written as such; clientID "" is omitempty.
    expect(specs(runtime(), shoot({}), { issuerURL: 'https://bare.example' })).toEqual([
      [
        'kyma-oidc-0',
        { issuerURL: 'https://bare.example', usernameClaim: '', usernamePrefix: '', groupsClaim: '', jwks: {} },
      ],
    ]);
  });

  it("one kyma-oidc-<i> per entry of the Runtime's own list, in its order, with its omitempty rules", () => {
    expect(
      specs(
        runtime([
          { clientID: 'a', issuerURL: 'https://a.example', requiredClaims: { aud: 'x' }, jwks: 'a2V5cw==' },
          { clientID: 'b', issuerURL: 'https://b.example', groupsPrefix: '', signingAlgs: [], requiredClaims: {} },
        ]),
      ),
    ).toEqual([
      [
        'kyma-oidc-0',
        { issuerURL: 'https://a.example', clientID: 'a', requiredClaims: { aud: 'x' }, jwks: { keys: 'a2V5cw==' } },
      ],
      ['kyma-oidc-1', { issuerURL: 'https://b.example', clientID: 'b', groupsPrefix: '', jwks: {} }],
    ]);
  });

  it('the default instead of the whole list when one entry lacks a clientID or an issuerURL (KIM)', () => {
    const partial = runtime([{ clientID: 'a', issuerURL: 'https://a.example' }, { clientID: 'b' }]);
    expect(specs(partial).map(([name, spec]) => [name, (spec as { issuerURL: string }).issuerURL])).toEqual([
      ['kyma-oidc-0', 'https://default.example'],
    ]);
    // An empty string is a value, as KIM tests for nil.
    expect(specs(runtime([{ clientID: '', issuerURL: 'https://a.example' }]))).toEqual([
      ['kyma-oidc-0', { issuerURL: 'https://a.example', jwks: {} }],
    ]);
  });

  it('none for an empty list: the Runtime asked for no OIDC provider', () => {
    expect(specs(runtime([]))).toEqual([]);
  });

  it('none while the shoot-oidc-service extension is disabled or absent; enabled when listed without disabled', () => {
    expect(specs(runtime(), shoot({ disabled: true }))).toEqual([]);
    expect(specs(runtime(), shoot())).toEqual([]);
    expect(specs(runtime(), shoot({}))).toHaveLength(1);
  });

  it("fails naming the field when the default is needed and the landscape has none (KIM's config requires it)", () => {
    expect(() => openIdConnects(runtime(), shoot({}), undefined)).toThrow(
      /additionalOidcConfig.*skrDefaultOidc|is not set, and the landscape has no skrDefaultOidc/,
    );
    expect(specs(runtime([]), shoot({}), undefined)).toEqual([]);
    expect(specs(runtime(), shoot({ disabled: true }), undefined)).toEqual([]);
  });
});
