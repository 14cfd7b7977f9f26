import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import {
  DEFAULT_APPLY,
  DEFAULT_COMMIT_AUTHOR,
  DEFAULT_DEPROVISIONING_BATCH_SIZE,
  DEFAULT_MASS_DELETION,
  DEFAULT_MERGE_POLICY,
  DEFAULT_ROLLOUT_WAVE_SIZE,
  landscapeRepoConfig,
  parseKimopsConfig,
  withRequiredChecks,
} from './kimops-config.js';

const minimal = `apiVersion: kimops.kyma-project.io/v1alpha1
kind: KimopsConfig
landscape: dev
gardener:
  project: kyma-dev
`;

function problem(text: string): string {
  try {
    parseKimopsConfig(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseKimopsConfig', () => {
  it('fills docs/design.md §1.5 defaults into a minimal file', () => {
    expect(parseKimopsConfig(minimal)).toEqual({
      apiVersion: 'kimops.kyma-project.io/v1alpha1',
      kind: 'KimopsConfig',
      landscape: 'dev',
      gardener: { project: 'kyma-dev' },
      policySet: 'default',
      drift: 'report',
      mergePolicy: DEFAULT_MERGE_POLICY,
      requiredChecks: ['kimops/validate'],
      massDeletion: DEFAULT_MASS_DELETION,
      deprovisioning: { batchSize: DEFAULT_DEPROVISIONING_BATCH_SIZE },
      rollout: { waveSize: DEFAULT_ROLLOUT_WAVE_SIZE },
      commit: { author: DEFAULT_COMMIT_AUTHOR },
      apply: DEFAULT_APPLY,
    });
  });

  it("spells out exactly the defaults in the landscape repo template's kimops.yaml, as its comment says", () => {
    const template = readFileSync(new URL('../repo-template/kimops.yaml', import.meta.url), 'utf8')
      .replace('{{landscape}}', 'dev')
      .replace('{{project}}', 'kyma-dev');
    expect(parseKimopsConfig(template)).toEqual(parseKimopsConfig(minimal));
    expect(template).toContain('deprovisioning:\n  batchSize: 10\n');
  });

  it("sets the classes of changes inside the clusters: the Runtime's own (skr) and those no Runtime asked for", () => {
    const config = parseKimopsConfig(
      `${minimal}mergePolicy:\n  skr: { mode: review, approvals: 2 }\n  skr-unrequested: { mode: auto-merge }\n`,
    );
    expect(config.mergePolicy.skr).toEqual({ mode: 'review', approvals: 2 });
    expect(config.mergePolicy['skr-unrequested']).toEqual({ mode: 'auto-merge' });
    expect(config.mergePolicy.update).toEqual(DEFAULT_MERGE_POLICY.update);
  });

  it('reads requiredChecks, and refuses duplicates and blank names', () => {
    expect(parseKimopsConfig(`${minimal}requiredChecks: [kimops/validate, validate]\n`).requiredChecks).toEqual([
      'kimops/validate',
      'validate',
    ]);
    expect(parseKimopsConfig(`${minimal}requiredChecks: []\n`).requiredChecks).toEqual([]);
    expect(problem(`${minimal}requiredChecks: [validate, validate]\n`)).toMatch(/requiredChecks: .*duplicate/);
    expect(problem(`${minimal}requiredChecks: [' validate']\n`)).toMatch(/requiredChecks\.0: must match pattern/);
    expect(problem(`${minimal}requiredChecks: validate\n`)).toMatch(/requiredChecks: must be array/);
  });

  it('withRequiredChecks sets the one-line list in place, keeping the comments, or appends it', () => {
    const template = `${minimal}# the checks\nrequiredChecks: [kimops/validate]\ndrift: report\n`;
    const set = withRequiredChecks(template, ['kimops/validate', 'validate']);
    expect(set).toBe(`${minimal}# the checks\nrequiredChecks: ["kimops/validate", "validate"]\ndrift: report\n`);
    expect(parseKimopsConfig(withRequiredChecks(minimal, ['validate'])).requiredChecks).toEqual(['validate']);
    expect(() => withRequiredChecks(`${minimal}requiredChecks:\n  - kimops/validate\n`, ['validate'])).toThrow(
      /write it on one line/,
    );
  });

  it('overrides the classes and limits the file names, keeping the other defaults', () => {
    const config = parseKimopsConfig(`${minimal}policySet: strict
drift: correct
mergePolicy:
  update: { mode: review, approvals: 2 }
  update-disruptive: { mode: review }
  create: { mode: auto-merge }
massDeletion:
  maxShoots: 5
rollout:
  waveSize: 200
deprovisioning:
  batchSize: 40
commit:
  author: {name: landscape-bot, email: bot@users.noreply.example.com}
apply:
  fieldManager: kim
  forceDeletion: true
  timeouts: {update: 1h30m}
  concurrency: 8
`);
    expect(config.policySet).toBe('strict');
    expect(config.drift).toBe('correct');
    expect(config.mergePolicy.update).toEqual({ mode: 'review', approvals: 2 });
    expect(config.mergePolicy['update-disruptive']).toEqual({ mode: 'review', approvals: 1 });
    expect(config.mergePolicy.rollout).toEqual(DEFAULT_MERGE_POLICY.rollout);
    expect(config.mergePolicy.skr).toEqual({ mode: 'auto-merge' });
    expect(config.mergePolicy['skr-unrequested']).toEqual({ mode: 'review', approvals: 1 });
    expect(config.massDeletion).toEqual({ maxShoots: 5, maxPercent: DEFAULT_MASS_DELETION.maxPercent });
    expect(config.rollout.waveSize).toBe(200);
    expect(config.deprovisioning).toEqual({ batchSize: 40 });
    expect(config.commit.author).toEqual({ name: 'landscape-bot', email: 'bot@users.noreply.example.com' });
    expect(config.apply).toEqual({
      ...DEFAULT_APPLY,
      fieldManager: 'kim',
      forceDeletion: true,
      concurrency: 8,
      timeouts: { ...DEFAULT_APPLY.timeouts, update: 5_400_000 },
    });
  });

  it.each([
    [
      'an unknown class',
      `${minimal}mergePolicy:\n  immutable: { mode: auto-merge }\n`,
      'kimops.yaml: mergePolicy.immutable: is not a known key; check its spelling',
    ],
    [
      'an unknown mode',
      `${minimal}mergePolicy:\n  create: { mode: yolo }\n`,
      'mergePolicy.create.mode: must be one of auto-merge, review',
    ],
    ['a bad drift mode', `${minimal}drift: ignore\n`, 'drift: must be one of correct, report, adopt'],
    ['a missing project', minimal.replace('gardener:\n  project: kyma-dev\n', ''), 'gardener: is required; add it'],
    ['a wrong kind', minimal.replace('KimopsConfig', 'Landscape'), 'kind: must be "KimopsConfig"'],
    [
      'approvals on auto-merge',
      `${minimal}mergePolicy:\n  create: { mode: auto-merge, approvals: 2 }\n`,
      'mergePolicy.create.approvals: only applies to mode: review',
    ],
    [
      'a percentage over 100',
      `${minimal}massDeletion: { maxPercent: 150 }\n`,
      'massDeletion.maxPercent: must be <= 100',
    ],
    [
      'an author git would refuse',
      `${minimal}commit: { author: { name: "a <b>", email: x@y } }\n`,
      'commit.author.name: must match pattern',
    ],
    ['an empty wave', `${minimal}rollout: { waveSize: 0 }\n`, 'rollout.waveSize: must be >= 1'],
    [
      'an empty deprovisioning batch',
      `${minimal}deprovisioning: { batchSize: 0 }\n`,
      'deprovisioning.batchSize: must be >= 1',
    ],
    [
      'a misspelt deprovisioning key',
      `${minimal}deprovisioning: { batch: 5 }\n`,
      'deprovisioning.batch: is not a known key',
    ],
    [
      'a timeout that is no duration',
      `${minimal}apply: { timeouts: { create: 60 } }\n`,
      'apply.timeouts.create: must be string',
    ],
    [
      'a timeout in the wrong unit',
      `${minimal}apply: { timeouts: { delete: 1d } }\n`,
      'apply.timeouts.delete: must match pattern',
    ],
    [
      'a timeout under a second',
      `${minimal}apply: { timeouts: { delete: 10ms } }\n`,
      'apply.timeouts.delete: 10ms is not a duration of a second or more',
    ],
    ['no concurrency', `${minimal}apply: { concurrency: 0 }\n`, 'apply.concurrency: must be >= 1'],
    ['broken YAML', 'landscape: [dev', 'kimops.yaml: line'],
  ])('rejects %s with a message naming the field', (_what, text, message) => {
    expect(problem(text)).toContain(message);
  });

  it('lists every problem at once', () => {
    expect(problem(`${minimal}drift: ignore\npolicyset: x\n`)).toMatch(/2 problems:\n {2}- .*\n {2}- /);
  });
});

describe('landscapeRepoConfig', () => {
  const at = { repo: 'land.git', ref: 'main', source: 'kimops.yaml on main' };

  it('reads the config of the landscape asked for', () => {
    expect(landscapeRepoConfig(minimal, at, 'dev')).toEqual(parseKimopsConfig(minimal));
  });

  it('names the repo and the fix when the ref has no kimops.yaml', () => {
    expect(() => landscapeRepoConfig(undefined, at, 'dev')).toThrow(
      '--repo: land.git has no kimops.yaml on main; create the landscape repo with kimops init',
    );
  });

  it("refuses another landscape's repo", () => {
    expect(() => landscapeRepoConfig(minimal, at, 'prod')).toThrow(
      '--landscape: land.git holds landscape dev, not prod; pass the matching landscape or repo',
    );
  });
});
