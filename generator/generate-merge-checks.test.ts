// Merges wait for every required check, and merged or closed branches go (issue 17): through the real generator
// on a landscape repo with the embedded local forge. Where the test needs CI (a workflow's check run), the local
// forge is wrapped to report that run, as GitHub's check-runs API would beside the statuses.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import type { CommitCheck, Forge } from '../adapters/forge/forge.js';
import { localForge } from '../adapters/forge/local.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { generate, type GenerateInput } from './generate.js';

const dir = useTempDir('generate-merge-checks');
const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };

/** A landscape repo whose main holds no Shoot yet, and the aws example Runtime to create. */
async function landscape(requiredChecks?: string) {
  const [entry] = (await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes;
  if (!entry) throw new Error('no example Runtime');
  const runtimes = [
    { ...entry, runtime: { ...entry.runtime, metadata: { ...entry.runtime.metadata, generation: 1 } } },
  ];
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const repo = await seededLandscape(`${dir.path}/repo.git`, [], settings, (text) =>
    requiredChecks === undefined ? text : text.replace(/^requiredChecks: .*$/m, `requiredChecks: ${requiredChecks}`),
  );
  const local = localForge(repo);
  /** The workflow's check run on every head, as the test sets it; undefined: not reported (yet). */
  let run: CommitCheck | undefined;
  let failDeletes = 0;
  const ci: Forge = {
    ...local,
    checkReporters: 'ci',
    checksOf: async (sha) => {
      const statuses = await local.checksOf(sha);
      return statuses.ok && run ? { ok: true, value: [...statuses.value, run] } : statuses;
    },
    deleteBranch: async (branch, options) =>
      failDeletes-- > 0
        ? { ok: false, failure: { kind: 'transport', message: 'GitHub: 502 Bad Gateway' } }
        : local.deleteBranch(branch, options),
  };
  const logs: string[] = [];
  const pass = (overrides: Partial<GenerateInput> = {}) =>
    generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      forge: ci,
      author,
      log: (line) => logs.push(line),
      ...overrides,
    });
  const branches = () =>
    execFileSync(
      'git',
      ['--git-dir', repo.gitdir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/kimops/dev/'],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .filter(Boolean);
  const shoot = entry.runtime.spec.shoot.name;
  return {
    repo,
    local,
    pass,
    logs,
    branches,
    shoot,
    setRun: (state: CommitCheck['state'] | undefined, description = state ?? '') => {
      run = state === undefined ? undefined : { name: 'validate', source: 'check-run', state, description };
    },
    failNextDeletes: (count: number) => {
      failDeletes = count;
    },
  };
}

describe('generate: merges wait for every required check', () => {
  it("merges a create as soon as kimops's own status is green, then deletes its branch", async () => {
    const { pass, branches, shoot } = await landscape();
    const result = await pass();
    expect(result.proposed).toEqual([expect.objectContaining({ shoot, action: 'auto-merge' })]);
    expect(branches()).toEqual([]);
  });

  it("waits for the workflow's check kimops.yaml requires, merges once it is green, and is blocked while it fails", async () => {
    const { pass, branches, shoot, setRun, logs, local } = await landscape('[kimops/validate, validate]');
    const waiting = await pass();
    expect(waiting.proposed).toEqual([expect.objectContaining({ shoot, action: 'await-checks' })]);
    expect(logs.join('\n')).toContain(
      'await-checks: auto-merge per mergePolicy.create, but waits for required check: validate (not reported yet)',
    );
    expect(branches()).toEqual([`kimops/dev/${shoot}`]);

    setRun('pending', 'in progress');
    expect((await pass()).proposed[0]?.action).toBe('await-checks');
    setRun('failure', 'failure');
    const failed = await pass();
    expect(failed.proposed[0]?.action).toBe('blocked');
    expect(logs.at(-1)).toContain('required check failed: validate (failure); fix the cause and run it again');

    setRun('success');
    const merged = await pass();
    expect(merged.proposed).toEqual([expect.objectContaining({ shoot, action: 'auto-merge' })]);
    expect(branches()).toEqual([]);
    expect(await local.getPullRequest(1)).toMatchObject({ ok: true, value: { state: 'closed', merged: true } });
  });

  it('closes a PR whose change is gone and deletes its branch', async () => {
    const { pass, branches, shoot, local } = await landscape('[kimops/validate, validate]');
    await pass();
    expect(branches()).toEqual([`kimops/dev/${shoot}`]);
    const gone = await pass({ runtimes: [] });
    expect(gone.closed).toEqual([1]);
    expect(branches()).toEqual([]);
    expect(await local.getPullRequest(1)).toMatchObject({ ok: true, value: { state: 'closed', merged: false } });
  });

  it('logs a branch it could not delete after the merge, and deletes it in a later pass', async () => {
    const { pass, branches, shoot, logs, failNextDeletes } = await landscape();
    failNextDeletes(1);
    expect((await pass()).proposed[0]?.action).toBe('auto-merge');
    expect(branches()).toEqual([`kimops/dev/${shoot}`]);
    expect(logs.join('\n')).toContain(
      `#1 kimops/dev/${shoot}: branch not deleted (transport): GitHub: 502 Bad Gateway`,
    );
    await pass();
    expect(branches()).toEqual([]);
  });

  it("leaves a merged PR's branch someone pushed to since", async () => {
    const { pass, branches, shoot, repo, failNextDeletes } = await landscape();
    failNextDeletes(1);
    await pass();
    const branch = `kimops/dev/${shoot}`;
    const pushed = await repo.commitFiles({
      branch,
      files: new Map([['NOTES.md', 'a human follow-up\n']]),
      message: 'follow-up',
      author,
    });
    expect(pushed.changed).toBe(true);
    await pass();
    expect(branches()).toEqual([branch]);
  });
});
