// The generator passes of `npm run bench -- generate`, run in a process of their own so that their
// peak RSS is the generator's, not the benchmark's setup (which renders and commits the whole landscape
// first). Usage: tsx scripts/bench/generate-passes.ts <bare repo made by the setup> <runtimes>; prints
// one JSON object. (b1) a cold no-op pass, (b2) a warm one (the memo of b1, as `--watch` keeps it), (c)
// one Runtime changed (worker maximum + 1, generation + 1) in a warm pass. Forge calls are timed apart.
import { readLandscape } from '../../adapters/files/landscape.js';
import { localForge } from '../../adapters/forge/local.js';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { generate, type GenerateResult } from '../../generator/generate.js';
import { RenderMemo } from '../../generator/render-memo.js';
import type { RuntimeInput } from '../../generator/render-runtimes.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { BENCH_AUTHOR, BENCH_LANDSCAPE, benchRuntimes, msSince, timed } from './generate-common.js';

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
    return [...this.byMethod]
      .map(([method, { calls, ms }]) => `${method}${calls > 1 ? ` ×${calls}` : ''} ${ms.toFixed(0)}`)
      .join(', ');
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

export interface PassFigures {
  ms: number;
  rendered: number;
  unchanged: number;
  proposed: number;
  mainMoved: boolean;
  forgeMs: number;
  forgeCalls: number;
  forge: string;
}

export interface PassesReport {
  cold: PassFigures;
  warm: PassFigures;
  single: PassFigures & { shoot: string; outcome: string; prBodyChars?: number; prState?: string };
  peakRssBytes: number;
  problems: string[];
}

async function passes(gitdir: string, count: number): Promise<PassesReport> {
  const landscape = await readLandscape(BENCH_LANDSCAPE);
  const settings = conversionSettingsOf(landscape);
  const repo = await LandscapeRepo.open(gitdir);
  const clock = new ForgeClock();
  const forge = localForge(repo);
  const problems: string[] = [];
  const memo = new RenderMemo();
  const pass = async (name: string, inputs: readonly RuntimeInput[]): Promise<[GenerateResult, PassFigures]> => {
    const before = await repo.resolve('main');
    clock.reset();
    const [result, ms] = await timed(() =>
      generate({
        landscape: landscape.name,
        settings,
        runtimes: inputs,
        runtimesComplete: true,
        repo,
        forge: timedForge(forge, clock),
        memo,
        author: BENCH_AUTHOR,
        log: () => undefined,
      }),
    );
    const failed = [
      ...result.failures.map((f) => f.message),
      ...result.bugs.map((b) => `${b.runtime}: ${String(b.error)}`),
    ];
    if (failed.length > 0) problems.push(`${name}: ${failed.length} Runtimes failed, e.g. ${failed[0]}`);
    const figures = {
      ms,
      rendered: result.rendered,
      unchanged: result.unchanged,
      proposed: result.proposed.length,
      mainMoved: (await repo.resolve('main')) !== before,
      forgeMs: clock.ms,
      forgeCalls: clock.calls,
      forge: clock.toString(),
    };
    return [result, figures];
  };

  const inputs: RuntimeInput[] = benchRuntimes(count).map((runtime) => ({ source: 'bench', runtime }));
  const [, cold] = await pass('(b1)', inputs);
  const [, warm] = await pass('(b2)', inputs);
  for (const [name, figures] of [
    ['(b1)', cold],
    ['(b2)', warm],
  ] as const) {
    if (figures.proposed > 0 || figures.mainMoved)
      problems.push(
        `${name} the no-op proposed ${figures.proposed} Shoots${figures.mainMoved ? ' and moved main' : ''}`,
      );
  }

  const index = Math.floor(count / 2);
  const changed = structuredClone(inputs[index]?.runtime as Runtime);
  const worker = changed.spec.shoot.provider.workers[0];
  if (worker) worker.maximum += 1;
  changed.metadata.generation = (changed.metadata.generation ?? 1) + 1;
  const changedInputs = inputs.slice();
  changedInputs[index] = { source: 'bench', runtime: changed };
  const [result, single] = await pass('(c)', changedInputs);
  const [proposal] = result.proposed;
  const record = proposal === undefined ? undefined : await forge.pullRecord(proposal.pr);
  const pr = record?.ok ? record.value : undefined;
  if (!proposal || !pr) problems.push('(c) the changed Runtime proposed nothing');
  return {
    cold,
    warm,
    single: {
      ...single,
      shoot: changed.spec.shoot.name,
      outcome: proposal ? `${proposal.class} → #${proposal.pr} ${proposal.action}` : 'nothing proposed',
      ...(pr && { prBodyChars: pr.body.length, prState: pr.state }),
    },
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    problems,
  };
}

const [gitdir, count] = process.argv.slice(2);
if (!gitdir || !count) {
  console.error('usage: tsx scripts/bench/generate-passes.ts <landscape repo> <runtimes>');
  process.exit(2);
}
console.log(JSON.stringify(await passes(gitdir, Number(count))));
