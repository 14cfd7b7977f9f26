// `kimops demo`, run: in a temp folder, a landscape repo from the template, the bundled KEB Runtimes proposed and
// auto-merged per the repo's policy, then one Runtime's worker maximum raised and its update PR shown. It runs
// the other subcommands in order. Its options: commands/demo.ts.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRuntimes } from '../adapters/files/manifests.js';
import { writeFiles } from '../adapters/files/write-files.js';
import { packagePath } from '../model/package-root.js';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { EXIT, type CliIo } from './cli-io.js';

/** Runs a kimops command line in a fresh program with the same I/O; its exit code. */
export type RunKimops = (argv: string[]) => Promise<number>;

const EXAMPLES = `${packagePath('examples', 'runtimes', 'keb')}/`;
/** The Runtime whose change the demo shows: KEB's AWS example. */
const CHANGED_RUNTIME = 'aws.yaml';

export async function demo(given: string | undefined, io: CliIo, run: RunKimops): Promise<number> {
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'kimops-demo-')));
  const repo = join(dir, 'landscape-dev.git');
  const runtimes = join(dir, 'runtimes');
  const step = (text: string) => io.stdout(`\n== ${text}\n`);

  step(`1/4 a landscape repo for dev from repo-template/: ${repo}`);
  if ((await run(['init', '--landscape', 'dev', repo])) !== EXIT.ok) return EXIT.internal;

  step('2/4 the bundled KEB Runtimes (one per plan) → one PR per Shoot; creates auto-merge per kimops.yaml');
  const { runtimes: examples } = await readRuntimes(EXAMPLES);
  await writeFiles(
    runtimes,
    examples.map(({ source, runtime }) => ({ path: source.slice(EXAMPLES.length), content: toCanonicalYaml(runtime) })),
  );
  if ((await run(['generate', '--landscape', 'dev', '--runtimes', runtimes, '--repo', repo, '--once'])) !== EXIT.ok)
    return EXIT.internal;

  step(`3/4 KEB raises the worker maximum of ${CHANGED_RUNTIME} → an update PR`);
  const changed = examples.find(({ source }) => source.endsWith(CHANGED_RUNTIME));
  const worker = changed?.runtime.spec.shoot.provider.workers[0];
  if (!changed || !worker) return EXIT.internal;
  worker.maximum += 5;
  changed.runtime.metadata.generation = (changed.runtime.metadata.generation ?? 0) + 1;
  await writeFiles(runtimes, [{ path: CHANGED_RUNTIME, content: toCanonicalYaml(changed.runtime) }]);
  if ((await run(['generate', '--landscape', 'dev', '--runtimes', runtimes, '--repo', repo, '--once'])) !== EXIT.ok)
    return EXIT.internal;

  step('4/4 the update PR as a reviewer sees it');
  const last = examples.length + 1; // the PRs so far: one create per Runtime, then this update
  if ((await run(['pr', 'show', String(last), '--repo', repo])) !== EXIT.ok) return EXIT.internal;

  io.stdout(`\nEverything is in ${dir}: git clone ${repo}; kimops pr list --repo ${repo}\n`);
  return EXIT.ok;
}
