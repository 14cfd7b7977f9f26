// Landscape-repo benchmark (issue 4): 10,000 synthetic Runtimes and a landscape repo made by `kimops init`
// (in-process, landscape dev). (a) The first full commit of all 10,000 Shoot folders on main by
// LandscapeRepo.commitFiles; baseline in the same run: the git CLI committing the same files
// (`git add -A && git commit` in a fresh worktree; only the git commands timed). Then the real generator
// pass, `generate()` with the embedded local forge, end to end: (b) a no-op — (b1) cold, a fresh
// RenderMemo, so all 10,000 are rendered and compared with main; (b2) warm, the memo of b1 kept as
// `--watch` keeps it — both must propose nothing and leave main as it was; (c) one Runtime changed
// (worker maximum + 1, generation + 1), a warm pass: its branch committed, the PR opened with its body
// (and auto-merged under the template's default policy). Forge calls are timed apart (a Proxy around the forge).
// Targets: (a) no slower than the git CLI; (b) under 1 s, no commit (the warm pass: a long-running
// generator); (c) under 200 ms, forge latency excluded; peak RSS < 500 MiB.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readLandscape } from '../../adapters/files/landscape.js';
import { localForge } from '../../adapters/forge/local.js';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { main as kimops } from '../../cli/kimops.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { generate, type GenerateResult } from '../../generator/generate.js';
import { RenderMemo } from '../../generator/render-memo.js';
import { shootFiles } from '../../generator/render/landscape-layout.js';
import type { RuntimeInput } from '../../generator/render/render-runtimes.js';
import { conversionSettingsOf, type ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { syntheticRuntimes } from './synthetic-runtimes.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const LANDSCAPE = 'dev';
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

/** Time spent inside the forge's methods, per method. */
class ForgeClock {
  readonly byMethod = new Map<string, { calls: number; ms: number }>();

  reset(): void {
    this.byMethod.clear();
  }

  get ms(): number {
    return [...this.byMethod.values()].reduce((sum, m) => sum + m.ms, 0);
  }

  get calls(): number {
    return [...this.byMethod.values()].reduce((sum, m) => sum + m.calls, 0);
  }

  add(method: string, ms: number): void {
    const entry = this.byMethod.get(method) ?? { calls: 0, ms: 0 };
    entry.calls++;
    entry.ms += ms;
    this.byMethod.set(method, entry);
  }

  toString(): string {
    return [...this.byMethod].map(([method, { calls, ms }]) => `${method}${calls > 1 ? ` ×${calls}` : ''} ${ms.toFixed(0)}`).join(', ');
  }
}

/**
 * The forge with every method call timed until its promise settles. generate() awaits each forge call
 * before going on and the local forge's methods do not call each other through the object, so the sum
 * is the pass's time in the forge, counted once.
 */
function timedForge<F extends object>(forge: F, clock: ForgeClock): F {
  return new Proxy(forge, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const start = process.hrtime.bigint();
        try {
          return (await (value as (...a: unknown[]) => unknown).apply(target, args)) as unknown;
        } finally {
          clock.add(String(property), msSince(start));
        }
      };
    },
  });
}

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0).padStart(6)} MiB`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
/** Peak RSS so far, in bytes (maxRSS is in KiB). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

export async function benchGenerate(): Promise<void> {
  const landscape = await readLandscape(LANDSCAPE);
  const settings = conversionSettingsOf(landscape);
  const runtimes = syntheticRuntimes(RUNTIMES);
  // A Runtime read from KCP always has a generation; the generator tells Runtime-driven changes by it.
  for (const runtime of runtimes) runtime.metadata.generation ??= 1;
  const work = mkdtempSync(join(tmpdir(), 'kimops-bench-generate-'));
  const problems: string[] = [];
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
    const initCode = await kimops(['init', '--landscape', LANDSCAPE, gitdir], { stdout: (t) => initOutput.push(t), stderr: (t) => initOutput.push(t), readStdin: async () => '' });
    if (initCode !== 0) throw new Error(`kimops init failed (exit ${initCode}):\n${initOutput.join('')}`);
    const repo = await LandscapeRepo.open(gitdir);

    // (a) the first full commit of every Shoot folder on main
    const [initial, initialMs] = await timed(() => repo.commitFiles({ branch: 'main', files: files as Map<string, string>, deletions: 'replace-shoots-folder', message: 'render', author }));
    files = undefined; // a generator holds no rendered landscape of its own
    const rssAfterSetup = peakRss();

    const clock = new ForgeClock();
    const forge = localForge(repo);
    const timedLocalForge = timedForge(forge, clock);
    const log: string[] = [];
    const pass = (inputs: readonly RuntimeInput[], memo: RenderMemo) =>
      timed(() => generate({ landscape: landscape.name, settings, runtimes: inputs, runtimesComplete: true, repo, forge: timedLocalForge, memo, author, log: (line) => log.push(line) }));
    const passProblems = (name: string, result: GenerateResult) => {
      const failed = [...result.failures.map((f) => f.message), ...result.bugs.map((b) => `${b.runtime}: ${String(b.error)}`)];
      if (failed.length > 0) problems.push(`${name}: ${failed.length} Runtimes failed, e.g. ${failed[0]}`);
    };
    const inputs: RuntimeInput[] = runtimes.map((runtime) => ({ source: 'bench', runtime }));
    const memo = new RenderMemo();

    // (b1) cold no-op: a fresh memo, every Runtime rendered and compared with main
    const mainBefore = await repo.resolve('main');
    clock.reset();
    const [cold, coldMs] = await pass(inputs, memo);
    const coldForge = { ms: clock.ms, text: clock.toString() };
    const mainAfterCold = await repo.resolve('main');
    const rssAfterCold = peakRss();
    passProblems('(b1)', cold);

    // (b2) warm no-op: the memo of b1, as a `--watch` generator keeps it
    clock.reset();
    const [warm, warmMs] = await pass(inputs, memo);
    const warmForge = { ms: clock.ms, text: clock.toString() };
    const mainAfterWarm = await repo.resolve('main');
    passProblems('(b2)', warm);
    const coldNoop = cold.proposed.length === 0 && mainAfterCold === mainBefore;
    const warmNoop = warm.proposed.length === 0 && mainAfterWarm === mainBefore;
    if (!coldNoop) problems.push(`(b1) the cold no-op proposed ${cold.proposed.length} Shoots${mainAfterCold === mainBefore ? '' : ' and moved main'}: ${log.slice(0, 3).join(' | ')}`);
    if (!warmNoop) problems.push(`(b2) the warm no-op proposed ${warm.proposed.length} Shoots${mainAfterWarm === mainAfterCold ? '' : ' and moved main'}`);

    // (c) one Runtime's worker maximum raised, its generation with it: a warm pass
    const index = Math.floor(RUNTIMES / 2);
    const changed = structuredClone(inputs[index]?.runtime as Runtime);
    const worker = changed.spec.shoot.provider.workers[0];
    if (worker) worker.maximum += 1;
    changed.metadata.generation = (changed.metadata.generation ?? 1) + 1;
    const changedInputs = inputs.slice();
    changedInputs[index] = { source: 'bench', runtime: changed };
    log.length = 0;
    clock.reset();
    const [single, singleMs] = await pass(changedInputs, memo);
    const singleForge = { ms: clock.ms, calls: clock.calls, text: clock.toString() };
    const mainAfterSingle = await repo.resolve('main');
    passProblems('(c)', single);
    const [proposal] = single.proposed;
    const record = proposal === undefined ? undefined : await forge.pullRecord(proposal.pr);
    const pr = record?.ok ? record.value : undefined;
    if (single.proposed.length === 0 || pr === undefined) problems.push('(c) the changed Runtime proposed nothing');

    const rssEnd = peakRss();
    const shoot = changed.spec.shoot.name;
    console.log(`\ngenerate: ${RUNTIMES} synthetic Runtimes → ${fileCount} files (${(bytes / 2 ** 20).toFixed(1)} MiB), landscape ${LANDSCAPE}, bare repo from kimops init, local forge`);
    console.log(`  render all (convert + YAML)            ${ms(renderMs)}`);
    console.log(`  (a) first full commit                  ${ms(initialMs)}   ${initial.changedPaths.length} files`);
    console.log(`      baseline git add -A && git commit  ${ms(cliMs)}   ratio ${(initialMs / cliMs).toFixed(2)}`);
    console.log(`  (b1) no-op generate(), cold memo       ${ms(coldMs)}   rendered ${cold.rendered}, unchanged ${cold.unchanged}, proposed ${cold.proposed.length}, main moved: ${mainAfterCold === mainBefore ? 'no' : 'YES'}; forge ${coldForge.ms.toFixed(0)} ms (${coldForge.text})`);
    console.log(`  (b2) no-op generate(), warm memo       ${ms(warmMs)}   rendered ${warm.rendered}, unchanged ${warm.unchanged}, proposed ${warm.proposed.length}, main moved: ${mainAfterWarm === mainAfterCold ? 'no' : 'YES'}; forge ${warmForge.ms.toFixed(0)} ms (${warmForge.text})`);
    console.log(
      `  (c) one Runtime changed, warm pass     ${ms(singleMs)}   rendered ${single.rendered}, ${proposal ? `${proposal.class} ${shoot} → #${proposal.pr} ${proposal.action}` : 'nothing proposed'}` +
        `${pr ? ` (PR ${pr.state}, body ${pr.body.length} chars)` : ''}, main moved: ${mainAfterSingle === mainAfterWarm ? 'no' : 'yes'}`,
    );
    console.log(`      of it in the forge                 ${ms(singleForge.ms)}   ${singleForge.calls} calls: ${singleForge.text}`);
    console.log(`      without the forge                  ${ms(singleMs - singleForge.ms)}`);
    console.log(`  peak RSS                               ${mib(rssEnd)}   (after render + (a): ${mib(rssAfterSetup).trim()}, after b1: ${mib(rssAfterCold).trim()})`);
    console.log(
      `  target                                 full ≤ git CLI: ${verdict(initialMs <= cliMs)}; no-op < ${TARGET_NOOP_MS} ms, none made: warm ${verdict(warmNoop && warmMs < TARGET_NOOP_MS)} ` +
        `(cold ${verdict(coldNoop && coldMs < TARGET_NOOP_MS)}); single < ${TARGET_SINGLE_MS} ms without the forge: ${verdict(!!pr && singleMs - singleForge.ms < TARGET_SINGLE_MS)} ` +
        `(with it: ${verdict(!!pr && singleMs < TARGET_SINGLE_MS)}); RSS < ${TARGET_RSS_MIB} MiB: ${verdict(rssEnd < TARGET_RSS_MIB * 2 ** 20)}`,
    );
    if (cold.rendered !== RUNTIMES || warm.rendered !== 0 || single.rendered !== 1) {
      console.log(`  note: rendered ${cold.rendered} / ${warm.rendered} / ${single.rendered} Runtimes in b1 / b2 / c, expected ${RUNTIMES} / 0 / 1`);
    }
    if (problems.length > 0) {
      for (const problem of problems) console.error(`  ${problem}`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
