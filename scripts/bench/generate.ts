// Landscape-repo benchmark (issue 4): 10,000 synthetic Runtimes rendered with the dev landscape and
// written into a fresh bare repo by LandscapeRepo — (a) the first full commit, (b) a no-op re-render,
// (c) one Runtime changed, committed on its own branch. Baseline in the same run: the git CLI
// committing the same files (`git add -A && git commit` in a fresh worktree; only the git commands timed).
// Targets: (a) no slower than the git CLI; (b) under 1 s, no commit; (c) under 200 ms; peak RSS < 500 MiB.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { shootFiles } from '../../generator/render/landscape-layout.js';
import { conversionSettingsOf, type ConversionSettings } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Runtime } from '../../model/runtime.js';
import { syntheticRuntimes } from './synthetic-runtimes.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const TARGET_NOOP_MS = 1_000;
const TARGET_SINGLE_MS = 200;
const TARGET_RSS_MIB = 500;
const author = { name: 'kimops bench', email: 'bench@kimops.invalid', timestamp: 1_790_000_000 };

function render(runtimes: readonly Runtime[], settings: ConversionSettings): Map<string, string> {
  const files = new Map<string, string>();
  for (const runtime of runtimes) {
    const result = convertRuntime({ runtime, settings });
    if (!result.ok) throw new Error(`benchmark Runtime ${runtime.metadata.name} failed to convert: ${result.error.message}`);
    for (const { path, content } of shootFiles(result.shoot, result.companions)) files.set(path, content);
  }
  return files;
}

const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const result = await work();
  return [result, msSince(start)];
}

/** The git CLI committing the same files in a fresh worktree; writing the files is not timed. */
function gitCliCommit(dir: string, files: ReadonlyMap<string, string>): number {
  // gc.auto=0: otherwise the commit starts a detached `git gc` over its 30,000 loose objects that competes
  // with the measurements after it.
  const config = ['-c', 'user.name=bench', '-c', 'user.email=bench@kimops.invalid', '-c', 'gc.auto=0'];
  const run = (...args: string[]) => execFileSync('git', ['-C', dir, ...config, ...args]);
  mkdirSync(dir, { recursive: true });
  run('init', '--quiet', '--initial-branch=main');
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const start = process.hrtime.bigint();
  run('add', '-A');
  run('commit', '--quiet', '-m', 'render');
  return msSince(start);
}

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

export async function benchGenerate(): Promise<void> {
  const landscapeFile = new URL('../../landscapes/dev/landscape.yaml', import.meta.url);
  const settings = conversionSettingsOf(parseLandscape(readFileSync(landscapeFile, 'utf8'), 'landscapes/dev/landscape.yaml', 'dev'));
  const runtimes = syntheticRuntimes(RUNTIMES);
  const work = mkdtempSync(join(tmpdir(), 'kimops-bench-generate-'));
  try {
    const renderStart = process.hrtime.bigint();
    let files = render(runtimes, settings);
    const renderMs = msSince(renderStart);
    const bytes = [...files.values()].reduce((sum, content) => sum + Buffer.byteLength(content), 0);
    const cliMs = gitCliCommit(join(work, 'cli'), files);

    // (a) the first full commit
    const repo = await LandscapeRepo.open(join(work, 'landscape.git'));
    const commit = (request: Partial<Parameters<LandscapeRepo['commitFiles']>[0]> & { files: ReadonlyMap<string, string> }) =>
      repo.commitFiles({ branch: 'main', deletions: 'replace-shoots-folder', message: 'render', author, ...request });
    const [initial, initialMs] = await timed(() => commit({ files }));

    // (b) no-op: everything rendered again (new strings, same bytes) and committed as the whole shoots/ folder;
    // the first render is let go first, as a generator would.
    const rerenderStart = process.hrtime.bigint();
    files = render(runtimes, settings);
    const rerenderMs = msSince(rerenderStart);
    const [noop, noopMs] = await timed(() => commit({ files }));

    // (c) one Runtime's worker maximum raised: re-render it and commit it on its own branch from main
    const changed = structuredClone(runtimes[Math.floor(RUNTIMES / 2)] as Runtime);
    const worker = changed.spec.shoot.provider.workers[0];
    if (worker) worker.maximum += 1;
    const shoot = changed.spec.shoot.name;
    const [single, singleMs] = await timed(async () => {
      const one = render([changed], settings);
      return commit({ branch: `kimops/dev/${shoot}`, base: 'main', files: one, deletions: [] });
    });

    const peakRssMiB = process.resourceUsage().maxRSS / 1024;
    console.log(`\ngenerate: ${RUNTIMES} synthetic Runtimes → ${files.size} files (${(bytes / 2 ** 20).toFixed(1)} MiB), dev landscape, bare repo`);
    console.log(`  render all (convert + YAML)            ${ms(renderMs)}`);
    console.log(`  (a) first full commit                  ${ms(initialMs)}   ${initial.changedPaths.length} files`);
    console.log(`      baseline git add -A && git commit  ${ms(cliMs)}   ratio ${(initialMs / cliMs).toFixed(2)}`);
    console.log(`  (b) no-op: commitFiles of all files    ${ms(noopMs)}   commit made: ${noop.changed ? 'yes' : 'no'}`);
    console.log(`      with the re-render before it       ${ms(rerenderMs + noopMs)}   (render ${rerenderMs.toFixed(0)} ms)`);
    console.log(`  (c) one Runtime: render + commit       ${ms(singleMs)}   kimops/dev/${shoot}: ${single.changedPaths.join(', ')}`);
    console.log(`  peak RSS                               ${peakRssMiB.toFixed(0).padStart(6)} MiB`);
    console.log(
      `  target                                 full ≤ git CLI: ${verdict(initialMs <= cliMs)}; no-op commit < ${TARGET_NOOP_MS} ms, none made: ` +
        `${verdict(!noop.changed && noopMs < TARGET_NOOP_MS)} (with re-render: ${verdict(rerenderMs + noopMs < TARGET_NOOP_MS)}); ` +
        `single < ${TARGET_SINGLE_MS} ms: ${verdict(singleMs < TARGET_SINGLE_MS)}; RSS < ${TARGET_RSS_MIB} MiB: ${verdict(peakRssMiB < TARGET_RSS_MIB)}`,
    );
    if (noop.changed || !single.changed) {
      console.error('  the no-op made a commit or the single change made none: LandscapeRepo is broken');
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
