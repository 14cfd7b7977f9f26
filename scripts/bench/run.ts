// `npm run bench -- <name>`: runs one benchmark (or all) and prints its figures beside a
// baseline measured in the same run, with the machine's core count (docs/design.md §4).
import { cpus } from 'node:os';
import { benchApply } from './apply.js';
import { benchBackfill } from './backfill.js';
import { benchBootstrap } from './bootstrap.js';
import { benchConvert } from './convert.js';
import { benchGenerate } from './generate.js';
import { benchStatusPage } from './status-page.js';
import { benchValidate } from './validate.js';

const BENCHMARKS: Record<string, () => Promise<void> | void> = {
  convert: benchConvert,
  generate: benchGenerate,
  validate: benchValidate,
  apply: benchApply,
  backfill: benchBackfill,
  bootstrap: benchBootstrap,
  'status-page': benchStatusPage,
};
/** Run only when named: apply and backfill start a control plane and seed 10,000 Shoots through Gardener's admission (~40 min). */
const ON_REQUEST = new Set(['apply', 'backfill']);

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !(w in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
console.log(`node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'})`);
const chosen = wanted.length > 0 ? wanted : Object.keys(BENCHMARKS).filter((name) => !ON_REQUEST.has(name));
if (wanted.length === 0) console.log(`not run unless named: ${[...ON_REQUEST].join(', ')} (npm run bench -- <name>)`);
for (const name of chosen) await BENCHMARKS[name]?.();
