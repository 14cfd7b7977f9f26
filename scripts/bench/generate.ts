// Landscape-repo benchmark (issue 4): 10,000 synthetic Runtimes and a landscape repo made by `kimops init`
// (in-process, landscape dev). (a) The first full commit of all 10,000 Shoot folders on main by
// LandscapeRepo.commitFiles; baseline in the same run: the git CLI committing the same files
// (`git add -A && git commit` in a fresh worktree; only the git commands timed). Then the real generator
// pass, `generate()` with the embedded local forge, end to end, in a process of its own so its peak RSS
// is the generator's (generate-passes.ts): (b) a no-op — (b1) cold, a fresh RenderMemo, so all 10,000 are
// rendered and compared with main; (b2) warm, the memo of b1 kept as `--watch` keeps it — both must
// propose nothing and leave main as it was; (c) one Runtime changed (worker maximum + 1, generation + 1),
// a warm pass: its branch committed, the PR opened with its body (and auto-merged under the template's
// default policy). Forge calls are timed apart.
// Targets: (a) no slower than the git CLI; (b) under 1 s, no commit (the warm pass: a long-running
// generator); (c) under 200 ms, forge latency excluded; peak RSS < 500 MiB.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLandscape } from '../../adapters/files/landscape.js';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { main as kimops } from '../../cli/kimops.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { shootFiles } from '../../rules/landscape-layout.js';
import { conversionSettingsOf, type ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { BENCH_AUTHOR, BENCH_LANDSCAPE, benchRuntimes, msSince, timed } from './generate-common.js';
import type { PassesReport, PassFigures } from './generate-passes.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const TARGET_NOOP_MS = 1_000;
const TARGET_SINGLE_MS = 200;
const TARGET_RSS_MIB = 500;

function render(runtimes: readonly Runtime[], settings: ConversionSettings): Map<string, string> {
  const files = new Map<string, string>();
  for (const runtime of runtimes) {
    const result = convertRuntime({ runtime, settings });
    if (!result.ok)
      throw new Error(`benchmark Runtime ${runtime.metadata.name} failed to convert: ${result.error.message}`);
    for (const { path, content } of shootFiles(result.shoot, result.companions, result.skr)) files.set(path, content);
  }
  return files;
}

/** The git CLI committing the same files in a fresh worktree; writing the files is not timed (bootstrap.ts too). */
export function gitCliCommit(dir: string, files: ReadonlyMap<string, string>): number {
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
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0).padStart(6)} MiB`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
/** Peak RSS so far, in bytes (maxRSS is in KiB). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

export async function benchGenerate(): Promise<void> {
  const settings = conversionSettingsOf(await readLandscape(BENCH_LANDSCAPE));
  const runtimes = benchRuntimes(RUNTIMES);
  const work = mkdtempSync(join(tmpdir(), 'kimops-bench-generate-'));
  try {
    const renderStart = process.hrtime.bigint();
    let files: Map<string, string> | undefined = render(runtimes, settings);
    const renderMs = msSince(renderStart);
    const fileCount = files.size;
    const bytes = [...files.values()].reduce((sum, content) => sum + Buffer.byteLength(content), 0);
    const cliMs = gitCliCommit(join(work, 'cli'), files);

    // The landscape repo as `kimops init --landscape dev <dir>` makes it.
    const gitdir = join(work, 'landscape.git');
    const initOutput: string[] = [];
    const initCode = await kimops(['init', '--landscape', BENCH_LANDSCAPE, gitdir], {
      stdout: (t) => initOutput.push(t),
      stderr: (t) => initOutput.push(t),
      readStdin: async () => '',
    });
    if (initCode !== 0) throw new Error(`kimops init failed (exit ${initCode}):\n${initOutput.join('')}`);
    const repo = await LandscapeRepo.open(gitdir);

    // (a) the first full commit of every Shoot folder on main
    const [initial, initialMs] = await timed(() =>
      repo.commitFiles({
        branch: 'main',
        files: files as Map<string, string>,
        deletions: 'replace-shoots-folder',
        message: 'render',
        author: BENCH_AUTHOR,
      }),
    );
    files = undefined;

    // (b) and (c) in a fresh process: its peak RSS is the generator's alone.
    const passes = fileURLToPath(new URL('./generate-passes.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--import', 'tsx', passes, gitdir, String(RUNTIMES)], {
      encoding: 'utf8',
      maxBuffer: 16 * 2 ** 20,
    });
    const { cold, warm, single, peakRssBytes, problems } = JSON.parse(
      output.trim().split('\n').at(-1) as string,
    ) as PassesReport;

    const pass = (figures: PassFigures) =>
      `rendered ${figures.rendered}, unchanged ${figures.unchanged}, proposed ${figures.proposed}, main moved: ${figures.mainMoved ? 'yes' : 'no'}; forge ${figures.forgeMs.toFixed(0)} ms (${figures.forge})`;
    const singleWithoutForge = single.ms - single.forgeMs;
    const coldNoop = cold.proposed === 0 && !cold.mainMoved;
    const warmNoop = warm.proposed === 0 && !warm.mainMoved;
    const proposed = single.proposed > 0;
    console.log(
      `\ngenerate: ${RUNTIMES} synthetic Runtimes → ${fileCount} files (${(bytes / 2 ** 20).toFixed(1)} MiB), landscape ${BENCH_LANDSCAPE}, bare repo from kimops init, local forge`,
    );
    console.log(`  render all (convert + YAML)            ${ms(renderMs)}`);
    console.log(`  (a) first full commit                  ${ms(initialMs)}   ${initial.changedPaths.length} files`);
    console.log(`      baseline git add -A && git commit  ${ms(cliMs)}   ratio ${(initialMs / cliMs).toFixed(2)}`);
    console.log(`  (b1) no-op generate(), cold memo       ${ms(cold.ms)}   ${pass(cold)}`);
    console.log(`  (b2) no-op generate(), warm memo       ${ms(warm.ms)}   ${pass(warm)}`);
    console.log(
      `  (c) one Runtime changed, warm pass     ${ms(single.ms)}   rendered ${single.rendered}, ${single.shoot}: ${single.outcome}${single.prState ? ` (PR ${single.prState}, body ${single.prBodyChars} chars)` : ''}`,
    );
    console.log(
      `      of it in the forge                 ${ms(single.forgeMs)}   ${single.forgeCalls} calls: ${single.forge}`,
    );
    console.log(`      without the forge                  ${ms(singleWithoutForge)}`);
    console.log(
      `  peak RSS of the generator passes       ${mib(peakRssBytes)}   (the setup's own, rendering and committing everything: ${mib(peakRss()).trim()})`,
    );
    console.log(
      `  target                                 full ≤ git CLI: ${verdict(initialMs <= cliMs)}; no-op < ${TARGET_NOOP_MS} ms, none made: warm ${verdict(warmNoop && warm.ms < TARGET_NOOP_MS)} ` +
        `(cold ${verdict(coldNoop && cold.ms < TARGET_NOOP_MS)}); single < ${TARGET_SINGLE_MS} ms without the forge: ${verdict(proposed && singleWithoutForge < TARGET_SINGLE_MS)} ` +
        `(with it: ${verdict(proposed && single.ms < TARGET_SINGLE_MS)}); RSS < ${TARGET_RSS_MIB} MiB: ${verdict(peakRssBytes < TARGET_RSS_MIB * 2 ** 20)}`,
    );
    if (problems.length > 0) {
      for (const problem of problems) console.error(`  ${problem}`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
