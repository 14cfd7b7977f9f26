// The landscape repo survives `kill -9` and concurrent writers, shown with real processes: in each round
// two `kimops generate --once`, a `kimops pr approve` and a `kimops pr merge` per open PR run at once
// against one repo, while Runtimes are created, updated and deleted between rounds, and two of those
// processes are killed with SIGKILL at a random moment. After each round, and a clean generator pass:
// `git fsck --strict` finds nothing, every approval and merge a process reported is recorded (merges on
// main), there is one open PR per branch, PR numbers run 1..n without reuse, and every Runtime's Shoot is
// on main or in its open PR. docs/reliability.md quotes it.
//
// Bounded for CI: rounds go on until KIMOPS_TORTURE_KILLS processes (default 50) died while running; the
// seed is printed and KIMOPS_TORTURE_SEED replays a run; a longer soak is KIMOPS_TORTURE_KILLS=500. The processes run kimops compiled (as production does), built
// into node_modules/.cache once per test run.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { localForge } from '../../../adapters/forge/local.js';
import type { PullRecord } from '../../../adapters/forge/pull-record.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { seededRandom } from '../../helpers/seeded-random.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIST = join(ROOT, 'node_modules/.cache/kimops-torture');
const KILLS = Number(process.env['KIMOPS_TORTURE_KILLS'] ?? 50);
const KILLS_PER_ROUND = 2;
const SEED = Number(process.env['KIMOPS_TORTURE_SEED'] ?? Date.now() % 1_000_000);

const tmp = useTempDir('torture');

interface Run {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A kimops process; `kill()` sends SIGKILL while it runs. */
function start(args: string[]): { done: Promise<Run>; kill: () => void } {
  const child = spawn(process.execPath, [join(DIST, 'cli/kimops.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) =>
    child.on('close', (code, signal) => resolve({ args, code, signal, stdout, stderr })),
  );
  return { done, kill: () => void child.kill('SIGKILL') };
}

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });
const isAncestor = (gitdir: string, commit: string, of: string) => {
  try {
    execFileSync('git', ['--git-dir', gitdir, 'merge-base', '--is-ancestor', commit, of]);
    return true;
  } catch {
    return false;
  }
};

/** Everything reviews: so that PRs wait for `kimops pr approve` and `kimops pr merge` instead of auto-merging. */
const REVIEW_ALL = `mergePolicy:
  create: {mode: review, approvals: 1}
  update: {mode: review, approvals: 1}
  delete: {mode: review, approvals: 1}
  adopt: {mode: review, approvals: 1}
  metadata-only: {mode: review, approvals: 1}
`;

describe('the landscape repo under kill -9 and concurrent writers', () => {
  beforeAll(() => {
    // One compile per run: each process then starts in about a second instead of two through tsx.
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', DIST],
      { cwd: ROOT, stdio: 'inherit' },
    );
  }, 600_000);

  it(`keeps every promise through ${KILLS} kills (seed ${SEED})`, async () => {
    const next = seededRandom(SEED);
    const gitdir = join(tmp.path, 'landscape.git');
    const runtimesDir = join(tmp.path, 'runtimes');
    await mkdir(runtimesDir);
    const init = await start(['init', '--landscape', 'dev', gitdir]).done;
    expect(init.code, init.stderr).toBe(0);
    // The repo's policy: review everything, so the pr commands have work.
    const repo = await LandscapeRepo.open(gitdir);
    const config = (await repo.readFile('main', 'kimops.yaml')) as string;
    const reviewing = config.replace(/^mergePolicy:\n( {2}.*\n)+/m, REVIEW_ALL);
    expect(reviewing).toContain('create: {mode: review, approvals: 1}');
    await repo.commitFiles({
      branch: 'main',
      files: new Map([['kimops.yaml', reviewing]]),
      message: 'review everything',
      author: { name: 'test', email: 'test@localhost' },
    });

    const template = parse(await readFile(join(ROOT, 'examples/runtimes/keb/aws.yaml'), 'utf8')) as {
      metadata: { name: string; generation?: number; deletionTimestamp?: string; labels: Record<string, string> };
      spec: { shoot: { name: string; provider: { workers: { maximum: number }[] } } };
    };
    const runtimes = new Map<number, typeof template>();
    const write = async (id: number) => writeFile(join(runtimesDir, `rt-${id}.yaml`), stringify(runtimes.get(id)));
    const create = async (id: number) => {
      const runtime = structuredClone(template);
      runtime.metadata.name = `rt-${id}`;
      runtime.metadata.generation = 1;
      runtime.metadata.labels['kyma-project.io/runtime-id'] = `rt-${id}`;
      runtime.metadata.labels['kyma-project.io/shoot-name'] = `c-t${id}`;
      runtime.spec.shoot.name = `c-t${id}`;
      runtimes.set(id, runtime);
      await write(id);
    };
    for (let id = 1; id <= 4; id++) await create(id);
    let nextId = 5;

    const approved: { pr: number; reviewer: string }[] = [];
    const merged: number[] = [];
    let highest = 0;
    const branches = new Map<number, string>();
    let kills = 0;

    // A victim may finish before its moment comes: rounds go on until enough died while running.
    for (let round = 1; kills < KILLS; round++) {
      expect(round, 'rounds without enough kills').toBeLessThanOrEqual(KILLS * 2);
      // Between rounds the Runtimes change: a new one, an update (a generation bump), now and then a deletion by KEB.
      await create(nextId++);
      const live = [...runtimes.keys()].filter((id) => runtimes.get(id)?.metadata.deletionTimestamp === undefined);
      const updated = runtimes.get(live[Math.floor(next() * live.length)] as number) as typeof template;
      (updated.spec.shoot.provider.workers[0] as { maximum: number }).maximum += 1;
      updated.metadata.generation = (updated.metadata.generation ?? 1) + 1;
      await write(Number(updated.metadata.name.slice(3)));
      if (round % 4 === 0) {
        const deleted = runtimes.get(live[Math.floor(next() * live.length)] as number) as typeof template;
        deleted.metadata.deletionTimestamp = '2026-12-01T00:00:00Z';
        await write(Number(deleted.metadata.name.slice(3)));
      }

      const open = ((await localForge(repo).pullRecords()) as { ok: true; value: PullRecord[] }).value.filter(
        (pr) => pr.state === 'open',
      );
      const generate = ['generate', '--once', '--landscape', 'dev', '--runtimes', runtimesDir, '--repo', gitdir];
      const processes = [
        start(generate),
        start(generate),
        // A few of the open PRs each round (a random few): enough contention, and a round stays short on 2 cores.
        ...open
          .sort(() => next() - 0.5)
          .slice(0, 3)
          .flatMap((pr) => [
            start(['pr', 'approve', String(pr.number), '--repo', gitdir, '--as', `reviewer-${round}`]),
            start(['pr', 'merge', String(pr.number), '--repo', gitdir, '--as', `merger-${round}`]),
          ]),
      ];
      // Two of them die at a random moment of their lives.
      const victims = new Set<number>();
      while (victims.size < Math.min(KILLS_PER_ROUND, processes.length))
        victims.add(Math.floor(next() * processes.length));
      for (const victim of victims) setTimeout(() => processes[victim]?.kill(), 50 + next() * 1500);
      const runs = await Promise.all(processes.map((p) => p.done));

      for (const run of runs) {
        if (run.signal === 'SIGKILL') {
          kills++;
          continue;
        }
        // A process that lived must have ended as a user expects: done, or refused with a reason; never a bug.
        expect([0, 1], `${run.args.join(' ')} exited ${run.code}:\n${run.stderr}`).toContain(run.code);
        expect(run.stderr).not.toMatch(/\n\s+at /);
        const approval = /^approved #(\d+) as (\S+)/m.exec(run.stdout);
        if (approval) approved.push({ pr: Number(approval[1]), reviewer: approval[2] as string });
        const merge = /^merged #(\d+) /m.exec(run.stdout);
        if (merge) merged.push(Number(merge[1]));
      }

      // A clean pass afterwards converges from whatever the kills left.
      const clean = await start(generate).done;
      expect([0, 1], clean.stderr).toContain(clean.code);

      const fsck = await promisify(execFile)('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling']);
      expect(fsck.stderr, `round ${round}`).toBe('');
      const records = ((await localForge(repo).pullRecords()) as { ok: true; value: PullRecord[] }).value;
      // PR numbers run 1..n, never lost, never reused for another branch.
      expect(records.map((r) => r.number)).toEqual(records.map((_, i) => i + 1));
      expect(records.length).toBeGreaterThanOrEqual(highest);
      highest = records.length;
      for (const record of records) {
        expect(branches.get(record.number) ?? record.branch).toBe(record.branch);
        branches.set(record.number, record.branch);
      }
      // Every approval and merge a process reported is there.
      for (const { pr, reviewer } of approved)
        expect(
          records[pr - 1]?.reviews.map((r) => r.reviewer),
          `#${pr}`,
        ).toContain(reviewer);
      const main = git(gitdir, 'rev-parse', 'main').trim();
      for (const pr of merged) {
        const record = records[pr - 1] as PullRecord;
        expect(record.state, `#${pr}`).toBe('merged');
        expect(isAncestor(gitdir, record.mergeCommit as string, main), `#${pr}'s merge on main`).toBe(true);
      }
      // One open PR per branch.
      const openBranches = records.filter((r) => r.state === 'open').map((r) => r.branch);
      expect(new Set(openBranches).size).toBe(openBranches.length);
      // Every Runtime's Shoot is on main or in its open PR.
      for (const runtime of runtimes.values()) {
        if (runtime.metadata.deletionTimestamp !== undefined) continue;
        const shoot = runtime.spec.shoot.name;
        const path = `shoots/${shoot}/shoot.yaml`;
        const pr = records.find((r) => r.state === 'open' && r.branch === `kimops/dev/${shoot}`);
        const onMain = (await repo.readFile('main', path)) !== undefined;
        const inPr = pr !== undefined && (await repo.readFile(`kimops/dev/${shoot}`, path)) !== undefined;
        expect(onMain || inPr, `${shoot} in round ${round}`).toBe(true);
      }
    }
    expect(merged.length).toBeGreaterThan(0);
    expect(approved.length).toBeGreaterThan(0);
    await rm(DIST, { recursive: true, force: true });
  }, 3_600_000);
});
