// Converter benchmark (issue 2): 10,000 synthetic Runtimes over every plan, converted with the dev
// landscape and rendered to canonical YAML. Baseline: JSON.stringify of the same Shoots, timed in
// the same run. Target: ≥ 3,000 Runtimes/s end to end, peak RSS under 400 MiB.
import { readFileSync } from 'node:fs';
import { convertRuntime } from '../../generator/convert/index.js';
import { shootFiles } from '../../rules/landscape-layout.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Shoot } from '../../model/shoot.js';
import { syntheticRuntimes } from './synthetic-runtimes.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const TARGET_PER_SECOND = 3_000;
const TARGET_RSS_MIB = 400;

function percentile(sortedNanos: number[], p: number): number {
  return sortedNanos[Math.min(sortedNanos.length - 1, Math.floor((p / 100) * sortedNanos.length))] ?? 0;
}

const micros = (nanos: number) => `${(nanos / 1e3).toFixed(1)} µs`;

export function benchConvert(): void {
  const landscapeFile = new URL('../../landscapes/dev/landscape.yaml', import.meta.url);
  const settings = conversionSettingsOf(
    parseLandscape(readFileSync(landscapeFile, 'utf8'), 'landscapes/dev/landscape.yaml', 'dev'),
  );
  const runtimes = syntheticRuntimes(RUNTIMES);

  // Warm-up on a slice, so both measurements run optimised code.
  for (const runtime of runtimes.slice(0, 500)) {
    const result = convertRuntime({ runtime, settings });
    if (result.ok) shootFiles(result.shoot, result.companions, result.skr);
  }

  const perRuntime: number[] = [];
  const shoots: Shoot[] = [];
  let bytes = 0;
  let failures = 0;
  const start = process.hrtime.bigint();
  for (const runtime of runtimes) {
    const t0 = process.hrtime.bigint();
    const result = convertRuntime({ runtime, settings });
    if (result.ok) {
      for (const file of shootFiles(result.shoot, result.companions, result.skr)) bytes += file.content.length;
      shoots.push(result.shoot);
    } else failures++;
    perRuntime.push(Number(process.hrtime.bigint() - t0));
  }
  const total = Number(process.hrtime.bigint() - start);

  const baselineStart = process.hrtime.bigint();
  let baselineBytes = 0;
  for (const shoot of shoots) baselineBytes += JSON.stringify(shoot).length;
  const baseline = Number(process.hrtime.bigint() - baselineStart);

  perRuntime.sort((a, b) => a - b);
  const rate = RUNTIMES / (total / 1e9);
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(
    `\nconvert: ${RUNTIMES} synthetic Runtimes (${shoots.length} converted, ${failures} failed), dev landscape`,
  );
  console.log(
    `  convert + canonical YAML   ${rate.toFixed(0).padStart(7)} Runtimes/s   ${(total / 1e6).toFixed(0)} ms   ${(bytes / 2 ** 20).toFixed(1)} MiB YAML`,
  );
  console.log(
    `  baseline JSON.stringify    ${(shoots.length / (baseline / 1e9)).toFixed(0).padStart(7)} Shoots/s     ${(baseline / 1e6).toFixed(0)} ms   ${(baselineBytes / 2 ** 20).toFixed(1)} MiB JSON`,
  );
  console.log(
    `  per Runtime                p50 ${micros(percentile(perRuntime, 50))}   p99 ${micros(percentile(perRuntime, 99))}`,
  );
  console.log(`  peak RSS                   ${peakRssMiB.toFixed(0)} MiB`);
  console.log(
    `  target                     ≥ ${TARGET_PER_SECOND} Runtimes/s: ${rate >= TARGET_PER_SECOND ? 'met' : 'MISSED'}; RSS < ${TARGET_RSS_MIB} MiB: ${peakRssMiB < TARGET_RSS_MIB ? 'met' : 'MISSED'}`,
  );
  if (failures > 0) {
    console.error(`  ${failures} Runtimes failed to convert; the benchmark input is meant to be valid`);
    process.exitCode = 1;
  }
}
