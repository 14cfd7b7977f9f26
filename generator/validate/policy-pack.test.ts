// Runs every example under policies/default/examples/<policy>/ through the engine and checks the
// verdict its file name promises: pass-* passes, fail-* fails (an evaluation error is not a pass
// and not a clean failure either: it means the policy is broken). `<name>.old.yaml` beside an
// example is the live Shoot (UPDATE); `<name>.deleted.yaml` is a Shoot being deleted (DELETE).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseLandscape } from '../../model/landscape-parse.js';
import { gardenSeedObjects, loadGardenSeedInput } from '../../scripts/testenv/garden-seed.js';
import { EXAMPLES, packExamples, packParams, packPolicies } from '../../test/helpers/policy-pack.js';
import { evaluatePolicies, type PolicyInput } from './evaluate.js';
import { landscapeParams, zonesFromCloudProfiles } from './params.js';

const ROOT = new URL('../../', import.meta.url);

const read = (url: URL) => readFileSync(url, 'utf8');
const policies = packPolicies;
const params = packParams;

interface Example {
  policy: string;
  file: string;
  expected: 'passed' | 'failed';
  input: PolicyInput;
}

function examples(): Example[] {
  return packExamples().map(({ policy, file, expected, operation, object, oldObject }) => ({
    policy,
    file,
    expected,
    input: { object, oldObject, operation, params, landscape: 'stage' },
  }));
}

const cases = examples();

describe('the default policy pack', () => {
  it('has a passing and a failing example for every policy, and examples only for policies that exist', () => {
    for (const policy of policies) {
      expect(cases.filter((c) => c.policy === policy.name).map((c) => c.expected)).toEqual(
        expect.arrayContaining(['passed', 'failed']),
      );
    }
    expect(new Set(cases.map((c) => c.policy))).toEqual(new Set(policies.map((p) => p.name)));
  });

  it.each(cases.map((c) => [`${c.policy}/${c.file}`, c] as const))('%s', (_name, example) => {
    const [result] = evaluatePolicies(
      policies.filter((p) => p.name === example.policy),
      example.input,
    );
    expect(result?.status, result?.messages.join('\n')).toBe(example.expected);
    if (example.expected === 'failed') expect(result?.messages.every((m) => m.length > 20)).toBe(true);
  });

  it('passes a Shoot rendered by kimops through the whole pack without failures or errors', () => {
    const shoot = parse(read(new URL('ssh-access-disabled/pass-rendered.yaml', EXAMPLES))) as unknown;
    const results = evaluatePolicies(policies, {
      object: shoot,
      oldObject: shoot,
      operation: 'UPDATE',
      params,
      landscape: 'stage',
    });
    expect(results.filter((r) => r.status === 'failed' || r.status === 'error')).toEqual([]);
    expect(results.filter((r) => r.status === 'passed').length).toBeGreaterThanOrEqual(10);
  });

  it('uses params the engine computes: examples/params.yaml equals landscapeParams() for the stage landscape', () => {
    const landscape = parseLandscape(
      read(new URL('landscapes/stage/landscape.yaml', ROOT)),
      'landscapes/stage/landscape.yaml',
      'stage',
    );
    // The zones as the test plane's CloudProfiles list them (the examples' Shoots are admitted there).
    const profiles = gardenSeedObjects(loadGardenSeedInput()).filter((o) => o.kind === 'CloudProfile') as Parameters<
      typeof zonesFromCloudProfiles
    >[0];
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
