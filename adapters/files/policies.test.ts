import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { readPolicySet } from './policies.js';

describe('readPolicySet', () => {
  it('reads the shipped default set, policies only, sorted', async () => {
    const files = await readPolicySet('default');
    expect(files.length).toBeGreaterThanOrEqual(13);
    expect(files.map((f) => f.path)).toEqual([...files.map((f) => f.path)].sort());
    expect(
      files.every(
        (f) => /^policies\/default\/[^/]+\.ya?ml$/.test(f.path) && f.text.includes('kind: ValidatingAdmissionPolicy'),
      ),
    ).toBe(true);
  });

  it.each([
    ['an unknown set', 'strict', 'no policy set "strict" ships with kimops (known: default)'],
    ['a path', '../landscapes', 'is not a policy set name'],
  ])('refuses %s with the fix', async (_what, name, message) => {
    const error = await readPolicySet(name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
  });
});
