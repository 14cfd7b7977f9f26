// The kimops.yaml a sync runs under: main's, at the commit it syncs, checked against the landscape and Gardener
// project the applier was started for before anything is read from the Garden.
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { MAIN_BRANCH } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML, landscapeRepoConfig, type KimopsConfig } from '../model/kimops-config.js';

export interface ExpectedLandscape {
  /** The repo as the user named it (--repo), for the messages. */
  repo: string;
  landscape: string;
  project: string;
}

/** kimops.yaml at `commit` (main's newest, undefined when there is no main); a ConfigError with the fix when it does not fit. */
export async function configAtCommit(
  repo: Pick<LandscapeRepo, 'readFile'>,
  commit: string | undefined,
  expected: ExpectedLandscape,
): Promise<{ commit: string; config: KimopsConfig }> {
  const { landscape, project } = expected;
  if (commit === undefined)
    throw new ConfigError(
      '--repo',
      '',
      `${expected.repo} has no ${MAIN_BRANCH} branch; create the landscape repo with kimops init`,
    );
  const config = landscapeRepoConfig(
    await repo.readFile(commit, KIMOPS_YAML),
    { repo: expected.repo, ref: MAIN_BRANCH, source: `${KIMOPS_YAML} at ${commit.slice(0, 12)}` },
    landscape,
  );
  if (config.gardener.project !== project) {
    throw new ConfigError(
      KIMOPS_YAML,
      'gardener.project',
      `is ${config.gardener.project}, but landscape ${landscape} writes to project ${project}: make them the same`,
    );
  }
  return { commit, config };
}
