// One verdict: what the generator checks for the folder it commits (checkProposedShoot, the call in
// generate.ts) and what `kimops validate --base main` finds on a checkout of the PR's head
// (checkLandscapeFiles over main with that folder changed) agree on every object of a corpus — the policy
// pack's examples, variants fast-check derives from a rendered Shoot, and credential cases in the Shoot
// and in companion files. Equal facts give equal verdicts; with the generator's Runtime inventory (which
// the landscape repo's workflow lacks) the PR can only be stricter, never laxer.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, packExamples, packParams, packPolicies } from '../../test/helpers/policy-pack.js';
import { toCanonicalYaml } from '../../rules/canonical-yaml.js';
import type { ValidationContext } from './checks.js';
import { checkProposedShoot } from './folder-check.js';
import { checkLandscapeFiles } from './repo-check.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const GITHUB_TOKEN = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

/** The facts of the pack's examples (with a Runtime inventory, as the generator has one), and without it (as CI has). */
const withInventory: ValidationContext = { policies: packPolicies, params: packParams, landscape: 'stage' };
const withoutInventory: ValidationContext = {
  ...withInventory,
  params: Object.fromEntries([
    ...Object.entries(packParams).filter(([key]) => !key.startsWith('runtime.')),
    ['runtimeInventory', 'false'],
  ]),
};

/** A landscape repo's main beside the folder: another Shoot and the files kimops init writes. */
const MAIN = new Map([
  ['kimops.yaml', 'landscape: stage\npolicySet: default\n'],
  ['README.md', '# landscape stage\n'],
  [
    'shoots/c-other/shoot.yaml',
    readFileSync(new URL('worker-scaling-bounds/pass-rendered.yaml', EXAMPLES), 'utf8').replace(
      'name: c-78fcc25',
      'name: c-other',
    ),
  ],
]);

interface Case {
  name: string;
  /** The pack's examples: the policy the example is about, and its verdict. */
  policy?: string;
  expected?: 'passed' | 'failed';
  shoot: string;
  /** The folder as the PR commits it (none: a deletion). */
  files: Map<string, string>;
  /** The folder on main (none: a create). */
  onMain: Map<string, string> | undefined;
}

/** The generator's verdict: the failed checks' names (credentials, yaml, shoot-schema, policies). */
function generatorDenies(context: ValidationContext, c: Case): string[] {
  return checkProposedShoot(context, c.shoot, c.files, c.onMain)
    .filter((check) => !check.passed)
    .map((check) => check.name)
    .sort();
}

/** main and the PR's head as files: `mainOutside` beside the folder on main, the folder as the PR commits it. */
function checkouts(
  c: Case,
  mainOutside: ReadonlyMap<string, string>,
): { main: Map<string, string>; head: Map<string, string> } {
  const folder = `shoots/${c.shoot}/`;
  const main = new Map([...mainOutside, ...(c.onMain ?? [])]);
  return { main, head: new Map([...[...main].filter(([path]) => !path.startsWith(folder)), ...c.files]) };
}

/**
 * `kimops validate --base main` on the PR's head: the checks its denials name (credentials by rule folded
 * into one). `mainOutside`: what main holds beside the folder (clean unless a test says otherwise).
 */
function validateDenies(
  context: ValidationContext,
  c: Case,
  mainOutside: ReadonlyMap<string, string> = MAIN,
): string[] {
  const folder = `shoots/${c.shoot}/`;
  const { main, head } = checkouts(c, mainOutside);
  const report = checkLandscapeFiles({ files: head, base: main, context });
  // Nothing outside the PR's folder may decide its verdict: the PR changes nothing there, whatever main holds.
  expect(report.findings.filter((f) => !f.path.startsWith(folder))).toEqual([]);
  return [
    ...new Set(report.findings.filter((f) => f.severity === 'deny').map((f) => f.check.replace(/ \(.*\)$/, ''))),
  ].sort();
}

function expectOneVerdict(c: Case, mainOutside: ReadonlyMap<string, string> = MAIN): void {
  const generator = generatorDenies(withInventory, c);
  expect(generator, c.name).toEqual(validateDenies(withInventory, c, mainOutside));
  // The workflow's facts (no inventory): whatever it denies, the PR denied too.
  for (const check of validateDenies(withoutInventory, c, mainOutside)) expect(generator, c.name).toContain(check);
}

function packCases(): Case[] {
  return packExamples().map(({ policy, file, expected, operation, object, oldObject }) => {
    const shoot = ((object ?? oldObject) as { metadata: { name: string } }).metadata.name;
    const folder = (value: unknown) => new Map([[`shoots/${shoot}/shoot.yaml`, toCanonicalYaml(value)]]);
    return {
      name: `${policy}/${file}`,
      policy,
      expected,
      shoot,
      files: operation === 'DELETE' ? new Map() : folder(object),
      onMain: operation === 'CREATE' ? undefined : folder(oldObject),
    };
  });
}

const rendered = packExamples().find((e) => e.file === 'pass-rendered.yaml' && e.policy === 'ssh-access-disabled')
  ?.object as Record<string, unknown>;
const SHOOT = 'c-78fcc25';
const shootPath = `shoots/${SHOOT}/shoot.yaml`;
const companionPath = `shoots/${SHOOT}/configmap-extra-${SHOOT}.yaml`;

/** Credentials where the generator could write them: the Shoot's labels (from the Runtime's), a companion. */
const COMPANIONS = {
  none: undefined,
  clean:
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata:\n  config.yaml: |\n    issuer: https://example.com\n',
  password:
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata:\n  db.yaml: |\n    password: hunter2-Xq9\n',
  'secret-json': JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'extra' },
    data: { token: base64(GITHUB_TOKEN) },
  }),
  'secret-in-list': `apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: extra}, stringData: {key: ${AWS_KEY}}}\n`,
  'token-in-comment': `# ${GITHUB_TOKEN}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n`,
  broken: 'apiVersion: v1\nkind: ConfigMap\ndata: [unclosed\n  token: abc-123-def\n',
} as const;

/** Variants per operation; KIMOPS_VERDICT_RUNS=2000 to hunt longer. */
const RUNS = Number(process.env.KIMOPS_VERDICT_RUNS ?? 40);

interface Variant {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  ssh: boolean | undefined;
  version: string;
  minimum: number;
  maximum: number;
  account: string;
  annotation: string | undefined;
  companion: keyof typeof COMPANIONS;
  /** The Shoot's file replaced by this text. */
  shootAsText: string | undefined;
}

const variant: fc.Arbitrary<Variant> = fc.record({
  operation: fc.constantFrom<'CREATE' | 'UPDATE' | 'DELETE'>('CREATE', 'UPDATE', 'DELETE'),
  ssh: fc.constantFrom(true, false, undefined),
  version: fc.constantFrom('1.33.3', '1.32.5', '1.34.1', 'v1.33.3'),
  minimum: fc.integer({ min: 0, max: 6 }),
  maximum: fc.integer({ min: 0, max: 40 }),
  account: fc.constantFrom(
    'd90f856e-6f54-579b-a12b-27abb6e4727e',
    GITHUB_TOKEN,
    AWS_KEY,
    'xoxb-1234567890-1234567890123-AbCdEfGhIjKl',
    '',
  ),
  annotation: fc.constantFrom(
    undefined,
    'plain-value',
    base64(GITHUB_TOKEN),
    `{"auths":{"r.io":{"auth":"${base64('u:p4ss-W0rd')}"}}}`,
  ),
  companion: fc.constantFrom(...(Object.keys(COMPANIONS) as (keyof typeof COMPANIONS)[])),
  shootAsText: fc.constantFrom(undefined, 'not: [a shoot', 'kind: ConfigMap\n'),
});

function variantCase(v: Variant): Case {
  const shoot = structuredClone(rendered) as {
    metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    spec: {
      kubernetes: { version: string };
      provider: { workersSettings?: unknown; workers: { minimum: number; maximum: number }[] };
    };
  };
  shoot.metadata.labels.account = v.account;
  if (v.annotation !== undefined) shoot.metadata.annotations['example.com/note'] = v.annotation;
  if (v.ssh === undefined) delete shoot.spec.provider.workersSettings;
  else shoot.spec.provider.workersSettings = { sshAccess: { enabled: v.ssh } };
  shoot.spec.kubernetes.version = v.version;
  Object.assign(shoot.spec.provider.workers[0] ?? {}, { minimum: v.minimum, maximum: v.maximum });
  const files = new Map([[shootPath, v.shootAsText ?? toCanonicalYaml(shoot)]]);
  const companion = COMPANIONS[v.companion];
  if (companion !== undefined) files.set(companionPath, companion);
  const onMain = new Map([[shootPath, toCanonicalYaml(rendered)]]);
  return {
    name: JSON.stringify(v),
    shoot: SHOOT,
    files: v.operation === 'DELETE' ? new Map() : files,
    onMain: v.operation === 'CREATE' ? undefined : onMain,
  };
}

describe('one verdict: the generator denies what `kimops validate` denies on a checkout of its PR', () => {
  // The Shoot schema compiles on first use (about half a second): not the first test's time.
  beforeAll(
    () => void checkProposedShoot(withInventory, SHOOT, new Map([[shootPath, toCanonicalYaml(rendered)]]), undefined),
  );

  it.each(packCases().map((c) => [c.name, c] as const))("on the policy pack's example %s", (_name, c) => {
    expectOneVerdict(c);
    // Not a vacuous agreement: the example's own policy is denied exactly when its name says so.
    const denied = generatorDenies(withInventory, c).includes(c.policy as string);
    expect(denied).toBe(c.expected === 'failed');
  });

  it.each([
    ['a token in a Shoot label', { account: GITHUB_TOKEN, companion: 'none' as const }, ['credentials']],
    ['a Secret as a companion', { companion: 'secret-json' as const }, ['credentials']],
    ['a Secret in a List', { companion: 'secret-in-list' as const }, ['credentials']],
    ['a token in a comment', { companion: 'token-in-comment' as const }, ['credentials']],
    ['a password in a ConfigMap', { companion: 'password' as const }, ['credentials']],
    ['a base64-encoded token in an annotation', { annotation: base64(GITHUB_TOKEN) }, ['credentials']],
    ['a companion no reader parses', { companion: 'broken' as const }, ['credentials']],
    ['a shoot.yaml that is not YAML', { shootAsText: 'not: [a shoot' }, ['yaml']],
    ['a clean update', {}, []],
  ])('on %s', (_what, change, expected) => {
    const c = variantCase({
      operation: 'UPDATE',
      ssh: false,
      version: '1.33.3',
      minimum: 3,
      maximum: 20,
      account: 'd90f856e-6f54-579b-a12b-27abb6e4727e',
      annotation: undefined,
      companion: 'clean',
      shootAsText: undefined,
      ...change,
    });
    expect(generatorDenies(withInventory, c)).toEqual(expected);
    expectOneVerdict(c);
  });

  it.each(['CREATE', 'UPDATE', 'DELETE'] as const)(
    'on variants of a rendered Shoot, %s: SSH, versions, worker bounds, credentials in labels, annotations and companions',
    (operation) => {
      fc.assert(
        fc.property(variant, (v) => expectOneVerdict(variantCase({ ...v, operation }))),
        { numRuns: RUNS },
      );
    },
  );

  describe('when main already holds a credential (a README.md with a token, merged with `kimops pr merge --force`)', () => {
    const dirtyMain = new Map([...MAIN, ['README.md', `# landscape stage\n\nold token: ${GITHUB_TOKEN}\n`]]);
    const create = (change: Partial<Variant>) =>
      variantCase({
        operation: 'CREATE',
        ssh: false,
        version: '1.33.3',
        minimum: 3,
        maximum: 20,
        account: 'd90f856e-6f54-579b-a12b-27abb6e4727e',
        annotation: undefined,
        companion: 'clean',
        shootAsText: undefined,
        ...change,
      });

    it("a PR that adds a clean Shoot passes both: the generator's checks and `kimops validate --base main` on its head", () => {
      const c = create({});
      expect(checkProposedShoot(withInventory, c.shoot, c.files, c.onMain).every((check) => check.passed)).toBe(true);
      const { main, head } = checkouts(c, dirtyMain);
      expect(checkLandscapeFiles({ files: head, base: main, context: withInventory }).findings).toEqual([]);
      for (const context of [withInventory, withoutInventory])
        expect(validateDenies(context, c, dirtyMain)).toEqual([]);
      // The token is not lost: `kimops validate` without a base — on main, or on the head — still reports it.
      for (const files of [main, head]) {
        expect(
          checkLandscapeFiles({ files, context: withoutInventory }).findings.map(
            (f) => `${f.path}:${f.line} ${f.check}`,
          ),
        ).toEqual(['README.md:3 credentials (token-pattern)']);
      }
    });

    it.each([
      ['in a Shoot label', { account: GITHUB_TOKEN, companion: 'none' as const }],
      ['in a companion', { companion: 'token-in-comment' as const }],
    ])('a PR that adds the token %s is denied by both, for its own file', (_where, change) => {
      const c = create(change);
      expect(generatorDenies(withInventory, c)).toEqual(['credentials']);
      expect(validateDenies(withInventory, c, dirtyMain)).toEqual(['credentials']);
      expect(validateDenies(withoutInventory, c, dirtyMain)).toEqual(['credentials']);
    });

    it('on variants of a rendered Shoot, every operation: one verdict, whatever main holds beside the folder', () => {
      fc.assert(
        fc.property(variant, (v) => expectOneVerdict(variantCase(v), dirtyMain)),
        { numRuns: RUNS },
      );
    });
  });
});
