// The policy sets shipped with kimops: `policies/<set>/*.yaml` under the package root (found from this
// module's location, like the landscapes), read as texts for generator/validate's parser. Example
// objects under `<set>/examples/` are not policies and are not read.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { readTextFile } from './read-text.js';
import { packagePath } from '../../model/package-root.js';

const SHIPPED_POLICIES = `${packagePath('policies')}/`;

/** A set's name is a folder name, never a path (kimops.yaml's policySet comes from a landscape repo). */
const SET_NAME = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

export async function readPolicySet(setName: string): Promise<{ path: string; text: string }[]> {
  if (!SET_NAME.test(setName))
    throw new ConfigError(
      'policySet',
      '',
      `${JSON.stringify(setName)} is not a policy set name (lower-case letters, digits and "-")`,
    );
  const dir = join(SHIPPED_POLICIES, setName);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!entries) {
    const known = (await readdir(SHIPPED_POLICIES, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    throw new ConfigError(
      'policySet',
      '',
      `no policy set "${setName}" ships with kimops (known: ${known.sort().join(', ')})`,
    );
  }
  const files = entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => e.name)
    .sort();
  return Promise.all(
    files.map(async (name) => {
      const path = join(dir, name);
      return {
        path: `policies/${setName}/${name}`,
        text: await readTextFile(path, (reason) => new ConfigError(`policies/${setName}/${name}`, '', reason)),
      };
    }),
  );
}
