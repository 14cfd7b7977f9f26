// The merge under kimops's gate with an in-memory forge and repo: what the gate reads, that it reads and
// merges under the repo's lock, and the break-glass past it. `cli/pr.test.ts` runs it through the command.
import { describe, expect, it } from 'vitest';
import type { Approval, ForgeResult } from '../adapters/forge/forge.js';
import type { CommitStatus, PullRecord } from '../adapters/forge/pull-record.js';
import { VALIDATE_CONTEXT } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import { mergePullRequest } from './merge-pull-request.js';
import { classLine } from './propose/merge-gate.js';

const HEAD = 'a'.repeat(40);
const CONFIG =
  'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener: {project: dev}\n';

function fixture(
  options: {
    recorded?: string;
    statuses?: CommitStatus[];
    approvals?: Approval[];
    config?: string | undefined;
  } = {},
) {
  const record: PullRecord = {
    number: 1,
    branch: 'kimops/dev/a',
    base: 'main',
    title: 'Create shoot a',
    body: options.recorded ?? classLine(HEAD, { class: 'create', disruptive: false }),
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
  const ok = <T>(value: T): ForgeResult<T> => ({ ok: true, value });
  const merges: unknown[] = [];
  const forge = {
    pullRecord: (number: number) =>
      inLock(
        'pullRecord',
        number === 1 ? ok(record) : { ok: false as const, failure: { kind: 'not-found' as const, message: 'no #2' } },
      ),
    statuses: (sha: string) => inLock(`statuses ${sha.slice(0, 4)}`, ok(options.statuses ?? [])),
    approvals: () => inLock('approvals', ok(options.approvals ?? [])),
    mergePullRequest: (number: number, merge: unknown) => {
      merges.push({ number, ...(merge as object) });
      return inLock('merge', ok({ sha: 'm'.repeat(40) }));
    },
  };
  const repo = {
    gitdir: '/repos/landscape.git',
    readFile: (ref: string, path: string) =>
      inLock(`readFile ${ref}:${path}`, 'config' in options ? options.config : CONFIG),
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

const success: CommitStatus = { context: VALIDATE_CONTEXT, state: 'success', description: 'all checks passed' };

describe('mergePullRequest', () => {
  it("merges the recorded head the gate allows, reading the gate's inputs under the repo's lock", async () => {
    const { forge, repo, log, merges } = fixture({ statuses: [success] });
    const result = await mergePullRequest(forge, repo, { number: 1 });
    expect(result).toMatchObject({ outcome: 'merged', sha: 'm'.repeat(40), record: { branch: 'kimops/dev/a' } });
    expect(merges).toEqual([{ number: 1, sha: HEAD, method: 'merge' }]);
    expect(log).toEqual([
      'lock pr merge #1',
      'pullRecord',
      'readFile main:kimops.yaml',
      'statuses aaaa',
      'approvals',
      'merge',
    ]);
  });

  it('refuses what the gate refuses and merges nothing: no validation, no class, too few approvals on the head', async () => {
    const refused = async (options: Parameters<typeof fixture>[0]) => {
      const { forge, repo, merges } = fixture(options);
      const result = await mergePullRequest(forge, repo, { number: 1 });
      expect(merges).toEqual([]);
      return result.outcome === 'refused' ? `${result.decision.action}: ${result.decision.reason}` : result.outcome;
    };
    expect(await refused({})).toMatch(/^blocked: failed checks: kimops\/validate \(no status on the head/);
    expect(await refused({ statuses: [success], recorded: 'no class' })).toMatch(
      /^blocked: kimops recorded no change class for its head/,
    );
    const update = classLine(HEAD, { class: 'update', disruptive: true });
    expect(
      await refused({
        statuses: [success],
        recorded: update,
        approvals: [{ reviewer: 'alice', commitSha: 'b'.repeat(40) }],
      }),
    ).toMatch(/^await-review: update-disruptive: needs 1 approval, has 0/);

    const { forge, repo } = fixture({
      statuses: [success],
      recorded: update,
      approvals: [{ reviewer: 'alice', commitSha: HEAD }],
    });
    expect((await mergePullRequest(forge, repo, { number: 1 })).outcome).toBe('merged');
  });

  it('merges past the gate with who and why, without reading it', async () => {
    const { forge, repo, log, merges } = fixture({ recorded: 'no class' });
    const force = { by: 'bob', reason: 'incident 42' };
    expect((await mergePullRequest(forge, repo, { number: 1, force })).outcome).toBe('merged');
    expect(merges).toEqual([{ number: 1, sha: HEAD, method: 'merge', breakGlass: force }]);
    expect(log).toEqual(['lock pr merge #1', 'pullRecord', 'merge']);
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
