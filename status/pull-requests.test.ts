import { describe, expect, it } from 'vitest';
import type { PullRequest } from '../adapters/forge/forge.js';
import { classOf, openPullRequests, pullRequestNumberOf, rowPullRequest } from './pull-requests.js';

function pr(number: number, branch: string, change: Partial<PullRequest> = {}): PullRequest {
  return {
    number,
    url: `https://github.com/acme/landscape-dev/pull/${number}`,
    branch,
    base: 'main',
    headSha: 'a'.repeat(40),
    title: `[dev] update: ${branch}`,
    body: '',
    state: 'open',
    merged: false,
    labels: [],
    ...change,
  };
}

describe('pullRequestNumberOf', () => {
  it("reads GitHub's and the local forge's URLs", () => {
    expect(pullRequestNumberOf('https://github.com/acme/landscape-dev/pull/42')).toBe(42);
    expect(pullRequestNumberOf('https://ghe.example/acme/x/pull/7#issuecomment-1')).toBe(7);
    expect(pullRequestNumberOf('kimops pr show 12 --repo /srv/landscape-dev.git')).toBe(12);
    expect(pullRequestNumberOf('https://github.com/acme/landscape-dev/pulls')).toBeUndefined();
  });
});

describe('classOf', () => {
  it("is the kimops: label without its prefix; a human's label is none", () => {
    expect(classOf(['needs-love', 'kimops:update-disruptive'])).toBe('update-disruptive');
    expect(classOf(['needs-love'])).toBeUndefined();
  });
});

describe('openPullRequests', () => {
  const prs = [
    pr(3, 'kimops/dev/c-1', { labels: ['kimops:update'], createdAt: '2026-12-01T10:00:00Z' }),
    pr(4, 'kimops/dev-rollout/landscape-1a2b3c4d', {
      title: '[dev] rollout: kubernetes 1.33.3 → 1.34.1, wave 2/3, 1,050 shoots',
      labels: ['kimops:rollout'],
      createdAt: '2026-12-01T09:00:00Z',
    }),
    pr(5, 'kimops/dev-rollout/landscape-ffff0000', { title: 'a rollout someone renamed, wave 9/9, 3 shoots, later' }),
    pr(6, 'kimops/prod/c-1', { labels: ['kimops:update'] }),
    pr(7, 'fix-readme'),
    pr(8, 'kimops/dev/c-2', { state: 'closed', merged: true }),
    pr(9, 'kimops/dev/c-3', { url: 'kimops pr show 9 --repo /srv/x.git', labels: ['kimops:blocked'] }),
  ];

  it("lists the landscape's open PRs, oldest first, with class, Shoot and what they wait for", () => {
    const { pullRequests } = openPullRequests('dev', prs, new Map([[3, 'waiting-for-review']]));
    expect(pullRequests.map((p) => p.number)).toEqual([5, 9, 4, 3]);
    expect(pullRequests.find((p) => p.number === 3)).toEqual({
      number: 3,
      url: 'https://github.com/acme/landscape-dev/pull/3',
      title: '[dev] update: kimops/dev/c-1',
      class: 'update',
      openedAt: '2026-12-01T10:00:00Z',
      waitsFor: 'review',
      shoot: 'c-1',
    });
    // The local forge's URL is a command line: not linked.
    expect(pullRequests.find((p) => p.number === 9)).toMatchObject({
      url: '',
      class: 'blocked',
      waitsFor: 'never merges: Gardener would reject it',
      shoot: 'c-3',
    });
    expect(pullRequests.find((p) => p.number === 4)?.shoot).toBeUndefined();
  });

  it('reads the wave and the Shoots from a rollout title, tolerating another title', () => {
    const { rollouts } = openPullRequests('dev', prs, new Map());
    expect(rollouts).toEqual([
      { name: 'landscape-ffff0000', pr: 5, url: 'https://github.com/acme/landscape-dev/pull/5' },
      {
        name: 'landscape-1a2b3c4d',
        pr: 4,
        url: 'https://github.com/acme/landscape-dev/pull/4',
        wave: { number: 2, of: 3 },
        shoots: 1050,
        openedAt: '2026-12-01T09:00:00Z',
      },
    ]);
  });
});

describe('rowPullRequest', () => {
  const open = pr(3, 'kimops/dev/c-1', { labels: ['kimops:create'], createdAt: '2026-12-01T10:00:00Z' });
  const merged = pr(2, 'kimops/dev/c-1', {
    state: 'closed',
    merged: true,
    labels: ['kimops:create'],
    createdAt: '2026-11-30T10:00:00Z',
  });
  const byNumber = new Map([
    [3, open],
    [2, merged],
  ]);
  const openByBranch = new Map([['kimops/dev/c-1', open]]);

  it("is merged as soon as the forge says so, before the generator's next pass", () => {
    expect(
      rowPullRequest({ url: merged.url, state: 'waiting-for-review' }, 'kimops/dev/c-1', byNumber, openByBranch),
    ).toMatchObject({ number: 2, state: 'merged' });
  });

  it("is the proposal's PR, its class only while open", () => {
    expect(
      rowPullRequest({ url: merged.url, state: 'merged', commit: 'c' }, 'kimops/dev/c-1', byNumber, openByBranch),
    ).toEqual({
      number: 2,
      url: merged.url,
      state: 'merged',
      openedAt: '2026-11-30T10:00:00Z',
    });
    expect(rowPullRequest({ url: open.url, state: 'open' }, 'kimops/dev/c-1', byNumber, openByBranch)).toEqual({
      number: 3,
      url: open.url,
      class: 'create',
      state: 'open',
      openedAt: '2026-12-01T10:00:00Z',
      waitsFor: 'checks or merge',
    });
  });

  it("is the open PR of the Shoot's branch when the Runtime names none", () => {
    expect(rowPullRequest(undefined, 'kimops/dev/c-1', byNumber, openByBranch)).toMatchObject({
      number: 3,
      state: 'open',
    });
    expect(rowPullRequest(undefined, 'kimops/dev/c-9', byNumber, openByBranch)).toBeUndefined();
  });

  it('is the number alone when the forge was not read', () => {
    expect(
      rowPullRequest({ url: open.url, state: 'waiting-for-review' }, 'kimops/dev/c-1', new Map(), new Map()),
    ).toEqual({
      number: 3,
      url: open.url,
      state: 'waiting-for-review',
      waitsFor: 'review',
    });
  });
});
