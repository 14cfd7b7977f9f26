// The Runtime fields the SKR objects are made from, checked before they are read (validate-runtime.ts checks what
// the Shoot needs): a hand-written Runtime gets a FieldError naming the field, never a crash.
import { arrayOf, mapOfStrings, object, string } from '../support/shape-checks.js';

const oidcEntry = object(
  {
    clientID: string,
    issuerURL: string,
    groupsClaim: string,
    groupsPrefix: string,
    usernameClaim: string,
    usernamePrefix: string,
    signingAlgs: arrayOf(string),
    requiredClaims: mapOfStrings,
    jwks: string,
  },
  [
    'clientID',
    'issuerURL',
    'groupsClaim',
    'groupsPrefix',
    'usernameClaim',
    'usernamePrefix',
    'signingAlgs',
    'requiredClaims',
    'jwks',
  ],
);

const skrShape = object({
  spec: object({
    shoot: object(
      {
        kubernetes: object(
          { kubeAPIServer: object({ additionalOidcConfig: arrayOf(oidcEntry) }, ['additionalOidcConfig']) },
          ['kubeAPIServer'],
        ),
      },
      ['kubernetes'],
    ),
    security: object({ administrators: arrayOf(string) }),
  }),
});

export function validateSkrFields(runtime: unknown): void {
  skrShape(runtime, '');
}
