// A landscape repo whose main already holds the Shoots of some Runtimes, committed at once: the state a
// generator leaves once their creates are merged, without a PR per Shoot (for tests of what comes after,
// such as deletions, where a hundred create PRs would only cost time).
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { fileMapOf } from '../../rules/landscape-layout.js';
import { renderRuntimes, type RuntimeInput } from '../../generator/render-runtimes.js';
import type { ConversionSettings } from '../../model/landscape.js';
import { kimops } from './cli.js';

const author = { name: 'kimops', email: 'kimops@localhost' };

/**
 * `kimops init --landscape <landscape>` (default dev; a test project's landscape file works too) at `gitdir`, then one
 * commit on main with the rendered Shoots (and kimops.yaml edited by `policy`).
 */
export async function seededLandscape(
  gitdir: string,
  runtimes: readonly RuntimeInput[],
  settings: ConversionSettings,
  policy: (kimopsYaml: string) => string = (text) => text,
  landscape = 'dev',
): Promise<LandscapeRepo> {
  const init = await kimops(['init', '--landscape', landscape, gitdir]);
  if (init.code !== 0) throw new Error(`kimops init failed: ${init.stderr}`);
  const repo = await LandscapeRepo.open(gitdir);
  const rendered = renderRuntimes(runtimes, settings);
  const failed = [
    ...rendered.failures.map((f) => f.message),
    ...rendered.bugs.map((b) => `${b.runtime}: ${String(b.error)}`),
  ];
  if (failed.length > 0) throw new Error(`seed Runtimes failed to render: ${failed.join('; ')}`);
  const files = new Map<string, string>([['kimops.yaml', policy((await repo.readFile('main', 'kimops.yaml')) ?? '')]]);
  for (const r of rendered.rendered) for (const [path, content] of fileMapOf(r.manifests)) files.set(path, content);
  await repo.commitFiles({ branch: 'main', files, message: `seed ${rendered.rendered.length} Shoots`, author });
  return repo;
}
