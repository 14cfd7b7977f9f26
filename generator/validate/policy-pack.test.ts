// Runs every example under policies/default/examples/<policy>/ through the engine and checks the
// verdict its file name promises: pass-* passes, fail-* fails (an evaluation error is not a pass
// and not a clean failure either: it means the policy is broken). `<name>.old.yaml` beside an
// example is the live Shoot (UPDATE); `<name>.deleted.yaml` is a Shoot being deleted (DELETE).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseLandscape } from '../../model/landscape-parse.js';
import { evaluatePolicies, type PolicyInput } from './evaluate.js';
import { gardenSeedObjects, loadGardenSeedInput } from '../../scripts/testenv/garden-seed.js';
import { landscapeParams, zonesFromCloudProfiles } from './params.js';
import { parsePolicyFiles, type Operation } from './policy-file.js';

const ROOT = new URL('../../', import.meta.url);
const PACK = new URL('policies/default/', ROOT);
const EXAMPLES = new URL('examples/', PACK);

const read = (url: URL) => readFileSync(url, 'utf8');
const policies = parsePolicyFiles(
  readdirSync(PACK)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: `policies/default/${f}`, text: read(new URL(f, PACK)) })),
);
const params = (parse(read(new URL('params.yaml', EXAMPLES))) as { data: Record<string, string> }).data;

interface Example {
  policy: string;
  file: string;
  expected: 'passed' | 'failed';
  input: PolicyInput;
}

function examples(): Example[] {
  const result: Example[] = [];
  for (const policy of readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    const dir = new URL(`${policy}/`, EXAMPLES);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && !f.endsWith('.old.yaml')).sort()) {
      const shoot = parse(read(new URL(file, dir))) as unknown;
      const oldFile = file.replace(/\.yaml$/, '.old.yaml');
      let operation: Operation = 'CREATE';
      let object: unknown = shoot;
      let oldObject: unknown = null;
      if (file.endsWith('.deleted.yaml')) {
        operation = 'DELETE';
        object = null;
        oldObject = shoot;
      } else if (existsSync(new URL(oldFile, dir))) {
        operation = 'UPDATE';
        oldObject = parse(read(new URL(oldFile, dir)));
      }
      const expected = file.startsWith('pass-') ? 'passed' : file.startsWith('fail-') ? 'failed' : undefined;
      if (!expected) throw new Error(`policies/default/examples/${policy}/${file}: name it pass-* or fail-*`);
      result.push({ policy, file, expected, input: { object, oldObject, operation, params, landscape: 'stage' } });
    }
  }
  return result;
}

const cases = examples();

describe('the default policy pack', () => {
  it('has a passing and a failing example for every policy, and examples only for policies that exist', () => {
    for (const policy of policies) {
      expect(cases.filter((c) => c.policy === policy.name).map((c) => c.expected)).toEqual(expect.arrayContaining(['passed', 'failed']));
    }
    expect(new Set(cases.map((c) => c.policy))).toEqual(new Set(policies.map((p) => p.name)));
  });

  it.each(cases.map((c) => [`${c.policy}/${c.file}`, c] as const))('%s', (_name, example) => {
    const [result] = evaluatePolicies(policies.filter((p) => p.name === example.policy), example.input);
    expect(result?.status, result?.messages.join('\n')).toBe(example.expected);
    if (example.expected === 'failed') expect(result?.messages.every((m) => m.length > 20)).toBe(true);
  });

  it('passes a Shoot rendered by kimops through the whole pack without failures or errors', () => {
    const shoot = parse(read(new URL('ssh-access-disabled/pass-rendered.yaml', EXAMPLES))) as unknown;
    const results = evaluatePolicies(policies, { object: shoot, oldObject: shoot, operation: 'UPDATE', params, landscape: 'stage' });
    expect(results.filter((r) => r.status === 'failed' || r.status === 'error')).toEqual([]);
    expect(results.filter((r) => r.status === 'passed').length).toBeGreaterThanOrEqual(10);
  });

  it('uses params the engine computes: examples/params.yaml equals landscapeParams() for the stage landscape', () => {
    const landscape = parseLandscape(read(new URL('landscapes/stage/landscape.yaml', ROOT)), 'landscapes/stage/landscape.yaml', 'stage');
    // The zones as the test plane's CloudProfiles list them (the examples' Shoots are admitted there).
    const profiles = gardenSeedObjects(loadGardenSeedInput()).filter((o) => o.kind === 'CloudProfile') as Parameters<typeof zonesFromCloudProfiles>[0];
    const computed = landscapeParams({
      landscape,
      zones: zonesFromCloudProfiles(profiles),
      runtimes: Object.entries(params)
        .filter(([k]) => k.startsWith('runtime.'))
        .map(([k, platformRegion]) => ({ id: k.slice('runtime.'.length), platformRegion })),
    });
    for (const [key, value] of Object.entries(params)) expect([key, computed[key]]).toEqual([key, value]);
    expect(Object.keys(computed).filter((k) => !k.startsWith('zones.') && !(k in params))).toEqual([]);
  });

  it('evaluates fast: every example object through the whole pack (rough figure, no assertion on time)', () => {
    const inputs = cases.map((c) => c.input);
    const rounds = 200;
    const start = performance.now();
    let evaluated = 0;
    for (let i = 0; i < rounds; i++) {
      for (const input of inputs) {
        evaluatePolicies(policies, input);
        evaluated++;
      }
    }
    const perSecond = Math.round(evaluated / ((performance.now() - start) / 1000));
    console.log(`policy pack: ${policies.length} policies, ${evaluated} objects, ${perSecond} objects/s on one core`);
    expect(evaluated).toBe(rounds * inputs.length);
  });
});
