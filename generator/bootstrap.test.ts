// kimops bootstrap's pass on a real landscape repo (kimops init) with the local forge: live Shoots as kimops's converter
// makes them in create mode, one edited live, one without a Runtime, one Runtime without a live Shoot. One PR, one
// commit; the report names exactly the edited field; a second run writes nothing; a main with Shoots is refused.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { ConfigError } from '../model/errors.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { validateShootSchema } from '../model/schemas/shoot-schema.js';
import type { Shoot } from '../model/shoot.js';
import { ANNOTATION_SUSPEND_PATCH, bootstrapBranchOf } from '../model/contract.js';
import { LEADER_ANNOTATION, LEADER_LABEL } from '../rules/leader.js';
import { kimops } from '../test/helpers/cli.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { bootstrap, type BootstrapInput } from './bootstrap.js';
import { convertRuntime } from './convert/index.js';
import type { RuntimeInput } from './render-runtimes.js';

const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost', timestamp: 1_790_000_000 };

async function runtimeOf(file: string, shoot: string): Promise<RuntimeInput> {
  const [entry] = (await readRuntimes(`${EXAMPLES}${file}`)).runtimes;
  const runtime = structuredClone((entry as RuntimeInput).runtime);
  runtime.metadata = { ...runtime.metadata, name: `rt-${shoot}`, generation: 1 };
  runtime.spec.shoot.name = shoot;
  return { source: file, runtime };
}

/** The Shoot KIM made for the Runtime: kimops's converter in create mode. */
function liveOf({ runtime }: RuntimeInput, settings: ConversionSettings): Shoot {
  const result = convertRuntime({ runtime, settings });
  if (!result.ok) throw result.error;
  return result.shoot;
}

describe('bootstrap', () => {
  let dir: string;
  let input: Omit<BootstrapInput, 'repo' | 'forge'>;
  let empty: LandscapeRepo;
  let seeded: LandscapeRepo;
  // The repos made and the Shoot schema compiled once, outside the tests' time.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kimops-bootstrap-'));
    validateShootSchema({});
    const gitdir = join(dir, 'empty.git');
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    empty = await LandscapeRepo.open(gitdir);
    const landscape = { ...(await readLandscape('dev')), defaultLeader: 'kim' as const };
    const settings = conversionSettingsOf(landscape);
    const runtimes = [
      await runtimeOf('aws.yaml', 'b-aws'),
      await runtimeOf('gcp.yaml', 'b-gcp'),
      await runtimeOf('azure.yaml', 'b-new'),
    ];
    const [aws, gcp] = runtimes as [RuntimeInput, RuntimeInput];
    const edited = liveOf(gcp, settings);
    const worker = edited.spec.provider.workers[0];
    if (!worker) throw new Error('gcp example has no worker');
    worker.maximum += 7;
    const orphan = { ...liveOf(aws, settings), metadata: { ...liveOf(aws, settings).metadata, name: 'b-orphan' } };
    input = {
      landscape,
      settings,
      runtimes,
      runtimesComplete: true,
      gardenShoots: new Map([
        ['b-aws', liveOf(aws, settings)],
        ['b-gcp', edited],
        ['b-orphan', orphan],
      ]),
      author,
      log: () => undefined,
    };
    seeded = await seededLandscape(join(dir, 'seeded.git'), [aws], settings);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes every Runtime’s live Shoot in one commit and one PR, names the differing field, and a rerun writes nothing', async () => {
    const repo = empty;
    const forge = localForge(repo);
    const main = await repo.resolve('main');

    const first = await bootstrap({ ...input, repo, forge });
    expect(first.failures).toEqual([]);
    expect(first.pr?.outcome).toBe('opened');
    const branch = bootstrapBranchOf('dev');
    const head = await repo.resolve(branch);
    expect(head).toBe(first.head);
    expect(await repo.resolve('main')).toBe(main);
    const shoots = [...(await repo.listFolder(branch, 'shoots')).keys()].filter((name) => name !== '.gitkeep');
    expect(shoots.sort()).toEqual(['b-aws', 'b-gcp']);
    expect(await repo.readFile(branch, 'shoots/b-aws/shoot.yaml')).toContain(`${LEADER_ANNOTATION}: kim`);
    expect(await repo.readFile(branch, '.kimops/reports/dev-bootstrap.md')).toContain('### b-gcp');

    const { report } = first;
    const gcpWorker = input.gardenShoots.get('b-gcp')?.spec.provider.workers[0]?.name ?? '';
    expect(report.clusters.map((c) => [c.path, c.shoots])).toEqual([
      [`spec.provider.workers[${gcpWorker}].maximum`, ['b-gcp']],
    ]);
    expect(report.withoutRuntime).toEqual(['b-orphan']);
    expect(report.withoutShoot).toEqual([{ runtime: 'kcp-system/rt-b-new', shoot: 'b-new' }]);
    expect(report.written.map((w) => w.leader)).toEqual(['kim', 'kim']);

    const listed = await forge.listOpenPullRequests();
    if (!listed.ok) throw new Error(listed.failure.message);
    const [pr, ...others] = listed.value;
    expect(others).toEqual([]);
    expect(pr?.number).toBe(first.pr?.number);
    expect(pr?.body).toContain('b-orphan');
    expect(pr?.body).toContain(`<!-- kimops:class ${head ?? ''} bootstrap -->`);

    const second = await bootstrap({ ...input, repo, forge });
    expect(second.pr).toEqual({ ...first.pr, outcome: 'unchanged' });
    expect(await repo.resolve(branch)).toBe(head);

    // The Garden moved on while the PR is open (the edit undone): the same PR, updated in place from main.
    const undone = new Map(input.gardenShoots);
    undone.set('b-gcp', liveOf(input.runtimes[1] as RuntimeInput, input.settings));
    const third = await bootstrap({ ...input, gardenShoots: undone, repo, forge });
    expect(third.pr).toEqual({ ...first.pr, outcome: 'updated' });
    expect(third.report.clusters).toEqual([]);
    expect(await repo.resolve(branch)).toBe(third.head);
    const listedAgain = await forge.listOpenPullRequests();
    expect(listedAgain.ok && listedAgain.value.map((p) => p.number)).toEqual([first.pr?.number]);
  });

  it('leaves out a suspended Runtime and one whose leader label cannot be read, naming why, and writes the others', async () => {
    const gitdir = join(dir, 'left-out.git');
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const [aws, gcp] = input.runtimes as [RuntimeInput, RuntimeInput];
    const suspended = structuredClone(aws);
    suspended.runtime.metadata.annotations = { [ANNOTATION_SUSPEND_PATCH]: 'true' };
    const unreadable = structuredClone(gcp);
    unreadable.runtime.metadata.labels = { ...unreadable.runtime.metadata.labels, [LEADER_LABEL]: 'both' };
    const result = await bootstrap({ ...input, runtimes: [suspended, unreadable], repo, forge: localForge(repo) });
    expect(result.report.leftOut.map((l) => [l.shoot, l.why.split(':')[0]])).toEqual([
      ['b-aws', 'suspended (suspend-patch-reconciliation)'],
      ['b-gcp', 'runtime kcp-system/rt-b-gcp'],
    ]);
    expect(result.failures.map((f) => f.field)).toEqual([`metadata.labels[${LEADER_LABEL}]`]);
    expect(result.pr).toBeUndefined();
    expect(await repo.resolve(bootstrapBranchOf('dev'))).toBeUndefined();
  });

  it('refuses a main that already holds Shoot folders, naming them', async () => {
    const repo = seeded;
    await expect(bootstrap({ ...input, repo, forge: localForge(repo) })).rejects.toThrow(ConfigError);
    await expect(bootstrap({ ...input, repo, forge: localForge(repo) })).rejects.toThrow(
      /already holds 1 Shoot folder \(shoots\/b-aws\)/,
    );
  });
});
