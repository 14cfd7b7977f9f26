// `kimops demo`, run: in a temp folder, a landscape repo from the template, the bundled KEB Runtimes proposed and
// their creates auto-merged per the repo's policy, then the review loop: a disruptive update that waits for an
// approval, approved and merged with `kimops pr`, and a landscape change proposed as one rollout. It runs the
// other subcommands in order and prints the ones a reader can run afterwards exactly as they work. Its options:
// commands/demo.ts.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LANDSCAPE_FILE } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { writeFiles } from '../adapters/files/write-files.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { MAIN_BRANCH } from '../model/contract.js';
import { DEFAULT_COMMIT_AUTHOR } from '../model/kimops-config.js';
import { packagePath, runsFromCheckout } from '../model/package-root.js';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { EXIT, type CliIo } from './cli-io.js';

/** Runs a kimops command line in a fresh program with the same I/O; its exit code. */
export type RunKimops = (argv: string[]) => Promise<number>;

const EXAMPLES = `${packagePath('examples', 'runtimes', 'keb')}/`;
/** The Runtime whose change the demo shows: KEB's AWS example, given larger machines (a disruptive update). */
const CHANGED_RUNTIME = 'aws.yaml';
const LARGER_MACHINE = 'm6i.xlarge';
/** The landscape change the rollout carries: dev's default Kubernetes version, one minor up. */
const KUBERNETES = { from: 'defaultVersion: "1.33.3"', to: 'defaultVersion: "1.34.1"' };
const REVIEWER = 'alice';

export async function demo(given: string | undefined, io: CliIo, run: RunKimops): Promise<number> {
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'kimops-demo-')));
  const repo = join(dir, 'landscape-dev.git');
  const runtimes = join(dir, 'runtimes');
  const step = (text: string) => io.stdout(`\n== ${text}\n`);
  const generate = () => run(['generate', '--runtimes', runtimes, '--repo', repo, '--once']);

  step(`1/6 a landscape repo for dev from repo-template/: ${repo}`);
  if ((await run(['init', '--landscape', 'dev', repo])) !== EXIT.ok) return EXIT.internal;

  step('2/6 the bundled KEB Runtimes (one per plan) → one PR per Shoot; creates auto-merge per kimops.yaml');
  const { runtimes: examples } = await readRuntimes(EXAMPLES);
  await writeFiles(
    runtimes,
    examples.map(({ source, runtime }) => ({ path: source.slice(EXAMPLES.length), content: toCanonicalYaml(runtime) })),
  );
  if ((await generate()) !== EXIT.ok) return EXIT.internal;

  step(`3/6 KEB gives ${CHANGED_RUNTIME} larger machines → a disruptive update that waits for a reviewer`);
  const changed = examples.find(({ source }) => source.endsWith(CHANGED_RUNTIME));
  const worker = changed?.runtime.spec.shoot.provider.workers[0];
  if (!changed || !worker) return EXIT.internal;
  worker.machine.type = LARGER_MACHINE;
  changed.runtime.metadata.generation = (changed.runtime.metadata.generation ?? 0) + 1;
  await writeFiles(runtimes, [{ path: CHANGED_RUNTIME, content: toCanonicalYaml(changed.runtime) }]);
  if ((await generate()) !== EXIT.ok) return EXIT.internal;
  const update = examples.length + 1; // the PRs so far: one create per Runtime, then this update
  if ((await run(['pr', 'show', String(update), '--repo', repo])) !== EXIT.ok) return EXIT.internal;

  step(`4/6 ${REVIEWER} approves it; the merge passes the same gate the generator applies`);
  if ((await run(['pr', 'approve', String(update), '--repo', repo, '--as', REVIEWER])) !== EXIT.ok)
    return EXIT.internal;
  if ((await run(['pr', 'merge', String(update), '--repo', repo, '--as', REVIEWER])) !== EXIT.ok) return EXIT.internal;

  step(
    `5/6 an SRE raises dev's Kubernetes version in the repo's ${LANDSCAPE_FILE} → one rollout PR for the Shoots it changes`,
  );
  if (!(await raiseKubernetes(repo))) return EXIT.internal;
  if ((await generate()) !== EXIT.ok) return EXIT.internal;
  if ((await run(['pr', 'list', '--repo', repo])) !== EXIT.ok) return EXIT.internal;

  step('6/6 try it yourself');
  // From a checkout, its own executable by path: `npx kimops` outside the checkout would ask the npm registry.
  const kimops = runsFromCheckout() ? `node ${packagePath('cli', 'kimops-bin.js')}` : 'kimops';
  io.stdout(
    [
      `Everything is in ${dir}. The rollout waits for a reviewer, as the update did:`,
      `  ${kimops} pr show ${update + 1} --repo ${repo}`,
      `  ${kimops} pr approve ${update + 1} --repo ${repo} --as ${REVIEWER}`,
      `  ${kimops} pr merge ${update + 1} --repo ${repo} --as ${REVIEWER}`,
      `  git clone ${repo}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/** The landscape change a reviewed PR would merge, committed on main as that merge would (a demo has no reviewer). */
async function raiseKubernetes(gitdir: string): Promise<boolean> {
  const repo = await LandscapeRepo.open(gitdir);
  const text = await repo.readFile(MAIN_BRANCH, LANDSCAPE_FILE);
  if (text?.includes(KUBERNETES.from) !== true) return false;
  await repo.commitFiles({
    branch: MAIN_BRANCH,
    files: new Map([[LANDSCAPE_FILE, text.replace(KUBERNETES.from, KUBERNETES.to)]]),
    message: 'Kubernetes 1.34.1 for dev\n\nMade by kimops demo, as a merged pull request would.',
    author: DEFAULT_COMMIT_AUTHOR,
  });
  return true;
}
