// What a landscape repo checkout's change is judged against (`kimops validate --base`): the files at the base
// ref — its Shoot folders, and every other file the checkout also holds (one the checkout lacks was deleted:
// nothing to judge) — and the kimops.yaml whose rules apply: the base's when there is one, so a pull request
// does not choose its own. The checkout's git data is read through a port a LandscapeRepo fits.
import { SHOOTS_FOLDER } from '../../model/contract.js';
import { ConfigError } from '../../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig, type KimopsConfig } from '../../model/kimops-config.js';

/** The reads of the checkout's git data the base needs. */
interface BaseRepo {
  resolve(ref: string): Promise<string | undefined>;
  readFiles(commit: string): Promise<ReadonlyMap<string, { read(): Promise<string> }>>;
  readFile(commit: string, path: string): Promise<string | undefined>;
}

export interface ChangeBase {
  /** The ref as given, e.g. origin/main. */
  ref: string;
  kimopsYaml: string | undefined;
  files: Map<string, string>;
}

/**
 * The base at `ref` (a branch, a remote branch or a commit) of the checkout `where` names, whose files are
 * `checkout`.
 */
export async function readChangeBase(
  repo: BaseRepo,
  ref: string,
  checkout: ReadonlyMap<string, string>,
  where: string,
): Promise<ChangeBase> {
  const commit = (await repo.resolve(ref)) ?? (await repo.resolve(`refs/remotes/${ref}`));
  if (commit === undefined)
    throw new ConfigError(
      '--base',
      '',
      `${ref} is not a branch, remote branch or commit of ${where}; fetch it (actions/checkout with fetch-depth: 0)`,
    );
  const files = new Map<string, string>();
  for (const [path, file] of await repo.readFiles(commit)) {
    if (path.startsWith(`${SHOOTS_FOLDER}/`) || checkout.has(path)) files.set(path, await file.read());
  }
  return { ref, kimopsYaml: await repo.readFile(commit, KIMOPS_YAML), files };
}

/**
 * The kimops.yaml a checkout is checked under: the base's when there is one (a pull request must not choose
 * its own rules), else the checkout's, which `checkoutConfig` names in messages.
 */
export function changeConfig(
  checkout: ReadonlyMap<string, string>,
  base: ChangeBase | undefined,
  checkoutConfig: string,
): KimopsConfig {
  return parseKimopsConfig(
    base?.kimopsYaml ?? checkout.get(KIMOPS_YAML) ?? '',
    base ? `${KIMOPS_YAML} at ${base.ref}` : checkoutConfig,
  );
}
