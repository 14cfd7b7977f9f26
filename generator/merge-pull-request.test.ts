// The merge under kimops's gate with an in-memory forge and repo: what the gate reads, that it reads and
// merges under the repo's lock, the checks kimops.yaml requires, the break-glass past it, and the branch
// deleted after the merge. `cli/pr.test.ts` runs it through the command against a real repository.
import { describe, expect, it } from 'vitest';
import type { Approval, CommitCheck, ForgeResult } from '../adapters/forge/forge.js';
import type { CommitStatus, PullRecord } from '../adapters/forge/pull-record.js';
import { VALIDATE_CONTEXT } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import { mergePullRequest } from './merge-pull-request.js';
import { classLine } from './propose/merge-gate.js';
import { wroteLine } from './propose/written-heads.js';

const HEAD = 'a'.repeat(40);
const CONFIG =
  'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener: {project: dev}\n';
const ok = <T>(value: T): ForgeResult<T> => ({ ok: true, value });

function fixture(
  options: {
    recorded?: string;
    statuses?: CommitStatus[];
    /** Check runs besides the statuses (a forge where CI reports). */
    runs?: CommitCheck[];
    approvals?: Approval[];
    config?: string | undefined;
    /** The CODEOWNERS file on main; none when absent. */
    codeowners?: string;
    /** Who is in which team (`org/team`), as the forge answers. */
    teams?: Record<string, string[]>;
    deleted?: ForgeResult<{ deleted: boolean }>;
  } = {},
) {
  const record: PullRecord = {
    number: 1,
    branch: 'kimops/dev/a',
    base: 'main',
    title: 'Create shoot a',
    body: options.recorded ?? `${wroteLine(HEAD)}${classLine(HEAD, { class: 'create', disruptive: false })}`,
    state: 'open',
    labels: [],
    headSha: HEAD,
    reviews: [],
    comments: [],
  };
  let locked = false;
  const log: string[] = [];
  const inLock = <T>(what: string, value: T): Promise<T> => {
    log.push(`${what}${locked ? '' : ' (unlocked)'}`);
    return Promise.resolve(value);
  };
  const merges: unknown[] = [];
  const statuses = options.statuses ?? [];
  const forge = {
    checkReporters: options.runs === undefined ? ('kimops' as const) : ('ci' as const),
    pullRecord: (number: number) =>
      inLock(
        'pullRecord',
        number === 1 ? ok(record) : { ok: false as const, failure: { kind: 'not-found' as const, message: 'no #2' } },
      ),
    statuses: (sha: string) => inLock(`statuses ${sha.slice(0, 4)}`, ok(statuses)),
    checksOf: (sha: string) =>
      inLock(
        `checksOf ${sha.slice(0, 4)}`,
        ok([
          ...statuses.map((s): CommitCheck => ({
            name: s.context,
            source: 'status',
            state: s.state === 'error' ? 'failure' : s.state,
            description: s.description,
          })),
          ...(options.runs ?? []),
        ]),
      ),
    approvals: () => inLock('approvals', ok(options.approvals ?? [])),
    isTeamMember: (org: string, team: string, user: string) =>
      inLock(`isTeamMember ${org}/${team} ${user}`, ok(options.teams?.[`${org}/${team}`]?.includes(user) ?? false)),
    mergePullRequest: (number: number, merge: unknown) => {
      merges.push({ number, ...(merge as object) });
      return inLock('merge', ok({ sha: 'm'.repeat(40) }));
    },
    deleteBranch: (branch: string, guard?: { ifHeadIs?: string }) =>
      inLock(`deleteBranch ${branch} at ${guard?.ifHeadIs?.slice(0, 4)}`, options.deleted ?? ok({ deleted: true })),
  };
  const repo = {
    gitdir: '/repos/landscape.git',
    readFile: (ref: string, path: string) =>
      inLock(
        `readFile ${ref}:${path}`,
        path === 'CODEOWNERS'
          ? options.codeowners
          : path !== 'kimops.yaml'
            ? undefined
            : 'config' in options
              ? options.config
              : CONFIG,
      ),
    // The head changes shoots/a/ against main, its first parent.
    firstParent: (commit: string) => inLock(`firstParent ${commit.slice(0, 4)}`, commit === HEAD ? MAIN : undefined),
    listFolder: (ref: string, folder = '') => Promise.resolve(listing(ref === HEAD ? HEAD_TREE : MAIN_TREE, folder)),
    withLock: async <T>(purpose: string, work: () => Promise<T>): Promise<T> => {
      log.push(`lock ${purpose}`);
      locked = true;
      try {
        return await work();
      } finally {
        locked = false;
      }
    },
  };
  return { forge, repo, log, merges };
}

const MAIN = 'c'.repeat(40);
type Tree = { [name: string]: string | Tree };
const MAIN_TREE: Tree = { 'kimops.yaml': 'k', shoots: { b: { 'shoot.yaml': 'b' } } };
const HEAD_TREE: Tree = { 'kimops.yaml': 'k', shoots: { a: { 'shoot.yaml': 'a' }, b: { 'shoot.yaml': 'b' } } };

/** A folder's entries as LandscapeRepo.listFolder gives them: oids that change with what is below. */
function listing(tree: Tree, folder: string): Map<string, { oid: string; type: 'blob' | 'tree' }> {
  const at =
    folder === ''
      ? tree
      : folder
          .split('/')
          .reduce<Tree | string | undefined>((t, name) => (typeof t === 'object' ? t[name] : undefined), tree);
  if (typeof at !== 'object') return new Map();
  return new Map(
    Object.entries(at).map(([name, entry]) => [
      name,
      { oid: JSON.stringify(entry), type: typeof entry === 'string' ? ('blob' as const) : ('tree' as const) },
    ]),
  );
}

const success: CommitStatus = { context: VALIDATE_CONTEXT, state: 'success', description: 'all checks passed' };
const run = (state: CommitCheck['state'], description: string): CommitCheck => ({
  name: 'validate',
  source: 'check-run',
  state,
  description,
});
const requiring = (...checks: string[]) => `${CONFIG}requiredChecks: [${checks.join(', ')}]\n`;

async function refusal(options: Parameters<typeof fixture>[0]): Promise<string> {
  const { forge, repo, merges } = fixture(options);
  const result = await mergePullRequest(forge, repo, { number: 1 });
  expect(merges).toEqual([]);
  return result.outcome === 'refused' ? `${result.decision.action}: ${result.decision.reason}` : result.outcome;
}

describe('mergePullRequest', () => {
  it("merges the recorded head the gate allows, reading the gate's inputs under the repo's lock, then deletes its branch", async () => {
    const { forge, repo, log, merges } = fixture({ statuses: [success] });
    const result = await mergePullRequest(forge, repo, { number: 1 });
    expect(result).toMatchObject({
      outcome: 'merged',
      sha: 'm'.repeat(40),
      record: { branch: 'kimops/dev/a' },
      branchDeleted: true,
    });
    expect(merges).toEqual([{ number: 1, sha: HEAD, method: 'merge' }]);
    expect(log).toEqual([
      'lock pr merge #1',
      'pullRecord',
      'readFile main:kimops.yaml',
      'statuses aaaa',
      'checksOf aaaa',
      'approvals',
      'readFile main:.github/CODEOWNERS',
      'readFile main:CODEOWNERS',
      'readFile main:docs/CODEOWNERS',
      'merge',
      'deleteBranch kimops/dev/a at aaaa',
    ]);
  });

  it('refuses what the gate refuses and merges nothing: no validation, no class, too few approvals on the head', async () => {
    expect(await refusal({})).toMatch(/^blocked: failed checks: kimops\/validate \(no status on the head/);
    expect(await refusal({ statuses: [success], recorded: 'no class' })).toMatch(
      /^blocked: kimops recorded no change class for its head/,
    );
    const update = classLine(HEAD, { class: 'update', disruptive: true });
    expect(
      await refusal({
        statuses: [success],
        recorded: update,
        approvals: [{ reviewer: 'alice', commitSha: 'b'.repeat(40) }],
      }),
    ).toBe(
      'await-review: waits for 1 approval by a collaborator (mergePolicy.update-disruptive; CODEOWNERS names no owner of its files), has 0',
    );

    const { forge, repo } = fixture({
      statuses: [success],
      recorded: update,
      approvals: [{ reviewer: 'alice', commitSha: HEAD }],
    });
    expect((await mergePullRequest(forge, repo, { number: 1 })).outcome).toBe('merged');
  });

  it('counts only the approvals of the code owners CODEOWNERS on main names for the files the head changes', async () => {
    const update = classLine(HEAD, { class: 'update', disruptive: true });
    const codeowners = '* @acme/landscape\n/shoots/a/ @carol @acme/sre\n/shoots/b/ @bob\n';
    const approved = (...reviewers: string[]) => reviewers.map((reviewer) => ({ reviewer, commitSha: HEAD }));
    // bob owns shoots/b/, which the head does not change; alice owns nothing; mallory is in no team.
    expect(
      await refusal({
        statuses: [success],
        recorded: update,
        codeowners,
        approvals: approved('alice', 'bob', 'mallory'),
        teams: { 'acme/sre': ['dave'] },
      }),
    ).toBe(
      'await-review: waits for 1 approval by a code owner (mergePolicy.update-disruptive; CODEOWNERS: @carol, @acme/sre), has 0',
    );
    for (const reviewer of ['carol', 'dave']) {
      const { forge, repo, log } = fixture({
        statuses: [success],
        recorded: update,
        codeowners,
        approvals: approved(reviewer),
        teams: { 'acme/sre': ['dave'] },
      });
      expect((await mergePullRequest(forge, repo, { number: 1 })).outcome).toBe('merged');
      // carol is named; dave is asked for as a member of the team.
      expect(log.filter((line) => line.startsWith('isTeamMember'))).toEqual(
        reviewer === 'dave' ? ['isTeamMember acme/sre dave'] : [],
      );
    }
  });

  it('waits for every check kimops.yaml requires: pending or missing waits, failed blocks, each named', async () => {
    const config = requiring('kimops/validate', 'validate');
    expect(await refusal({ statuses: [success], runs: [], config })).toBe(
      'await-checks: auto-merge per mergePolicy.create, but waits for required check: validate (not reported yet)',
    );
    expect(await refusal({ statuses: [success], runs: [run('pending', 'in progress')], config })).toMatch(
      /^await-checks: .*waits for required check: validate \(in progress\)$/,
    );
    expect(await refusal({ statuses: [success], runs: [run('failure', 'timed_out')], config })).toMatch(
      /^blocked: .*required check failed: validate \(timed_out\); fix the cause and run it again$/,
    );
    const { forge, repo } = fixture({ statuses: [success], runs: [run('success', 'success')], config });
    expect(await mergePullRequest(forge, repo, { number: 1 })).toMatchObject({ outcome: 'merged' });
  });

  it('says plainly that a required check nothing posts to a local repository never arrives', async () => {
    expect(await refusal({ statuses: [success], config: requiring('kimops/validate', 'validate') })).toMatch(
      /waits for required check: validate \(never reported: only kimops posts statuses to a local repository; remove it from requiredChecks in kimops\.yaml/,
    );
  });

  it('merges past the gate with who and why, without reading it or kimops.yaml', async () => {
    const { forge, repo, log, merges } = fixture({ recorded: `${wroteLine(HEAD)}no class`, config: 'broken: [' });
    const force = { by: 'bob', reason: 'incident 42' };
    expect((await mergePullRequest(forge, repo, { number: 1, force })).outcome).toBe('merged');
    expect(merges).toEqual([{ number: 1, sha: HEAD, method: 'merge', breakGlass: force }]);
    expect(log).toEqual(['lock pr merge #1', 'pullRecord', 'merge', 'deleteBranch kimops/dev/a at aaaa']);
  });

  it('keeps a branch whose head kimops did not write, and logs a deletion that failed without failing the merge', async () => {
    const force = { by: 'bob', reason: 'a fix pushed by hand' };
    const foreign = fixture({ recorded: 'no wrote line' });
    expect(await mergePullRequest(foreign.forge, foreign.repo, { number: 1, force })).toMatchObject({
      outcome: 'merged',
      branchDeleted: false,
    });
    expect(foreign.log.filter((line) => line.startsWith('deleteBranch'))).toEqual([]);

    const lines: string[] = [];
    const moved = fixture({
      statuses: [success],
      deleted: { ok: false, failure: { kind: 'head-moved', message: 'kimops/dev/a moved' } },
    });
    const result = await mergePullRequest(moved.forge, moved.repo, { number: 1, log: (line) => lines.push(line) });
    expect(result).toMatchObject({ outcome: 'merged', branchDeleted: false });
    expect(lines).toEqual([
      '#1 kimops/dev/a: branch not deleted (head-moved): kimops/dev/a moved; a later pass tries again',
    ]);
  });

  it("gives the forge's failure back, and names a missing kimops.yaml as a configuration error", async () => {
    const { forge, repo } = fixture();
    expect(await mergePullRequest(forge, repo, { number: 2 })).toEqual({
      outcome: 'failed',
      failure: { kind: 'not-found', message: 'no #2' },
    });
    const missing = fixture({ config: undefined });
    await expect(mergePullRequest(missing.forge, missing.repo, { number: 1 })).rejects.toThrow(ConfigError);
    await expect(mergePullRequest(missing.forge, missing.repo, { number: 1 })).rejects.toThrow(
      'not found in /repos/landscape.git',
    );
  });
});
