// The fields of the live Shoot that update mode reads (KIM's getPatchOptions, plus the create-only
// fields kimops carries over). A live Shoot from a file or a repo can be hand-edited; it must fail
// with the field named rather than crash an extender or leak a wrong type into the manifest.
import { FieldError } from '../../model/errors.js';
import type { Shoot } from '../../model/shoot.js';
import { anyObject, arrayOf, boolean, object, string } from './support/shape-checks.js';

const liveShootShape = object({
  spec: object(
    {
      provider: object(
        {
          workers: arrayOf(
            object(
              {
                name: string,
                zones: arrayOf(string),
                machine: object({ image: object({ name: string, version: string }, ['name', 'version']) }, ['image']),
                updateStrategy: string,
              },
              ['zones', 'machine', 'updateStrategy'],
            ),
          ),
          infrastructureConfig: anyObject,
          controlPlaneConfig: anyObject,
        },
        ['workers', 'infrastructureConfig', 'controlPlaneConfig'],
      ),
      kubernetes: object(
        { version: string, kubeAPIServer: object({ serviceAccountConfig: anyObject }, ['serviceAccountConfig']) },
        ['version', 'kubeAPIServer'],
      ),
      extensions: arrayOf(
        object({ type: string, disabled: boolean, providerConfig: anyObject }, ['disabled', 'providerConfig']),
      ),
      resources: arrayOf(object({ name: string, resourceRef: anyObject })),
      dns: object({ providers: arrayOf(anyObject) }, ['providers']),
      tolerations: arrayOf(object({ key: string }, [])),
      networking: object({ ipFamilies: arrayOf(string), providerConfig: anyObject }, ['ipFamilies', 'providerConfig']),
    },
    ['kubernetes', 'extensions', 'resources', 'dns', 'tolerations', 'networking'],
  ),
});

/** Throws a FieldError (path starting with "live Shoot") for the first field update mode cannot use. */
export function validateLiveShoot(value: unknown): asserts value is Shoot {
  try {
    liveShootShape(value, '');
  } catch (error) {
    if (error instanceof FieldError) throw new FieldError(`live Shoot ${error.field}`, error.detail);
    throw error;
  }
}
