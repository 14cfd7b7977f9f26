// `kimops apply --once` against the real gardener-apiserver, with the gardenlet simulator playing Gardener's
// controllers: KEB's Runtimes generated into a landscape repo, then synced — create with companions first, a
// sync that configures the reconciled Shoots' clusters (the plane's kube-apiserver plays them), a no-op sync that
// writes nothing, a worker change, a deletion with confirmation — and --dry-run writing nothing.
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import {
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  COMPANION_OF_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Shoot } from '../../model/shoot.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { startGitServer } from '../helpers/git-http-server.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('apply');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
/** The Shoot names of KEB's example Runtimes. */
const AWS = 'c-78fcc25';
const GCP = 'c-56a4813';

beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

async function companionsOf(shoot: string): Promise<KubeObject[]> {
  const listed = await env.garden.list(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: project.namespace },
    `${COMPANION_OF_LABEL}=${shoot}`,
  );
  if (!listed.ok) throw new Error(`list ConfigMaps: ${listed.error.message}`);
  return listed.body.items;
}

const resourceVersions = async () =>
  Promise.all(
    [AWS, GCP].map(async (name) => (await getShoot(env.garden, project.namespace, name))?.metadata.resourceVersion),
  );
const settled = (shoot: Shoot | undefined) =>
  shoot?.status?.lastOperation?.state === 'Succeeded' && shoot.status.observedGeneration === shoot.metadata.generation;
const main = (gitdir: string) => readFileSync(join(gitdir, 'refs/heads/main'), 'utf8').trim();

describe('kimops apply --once', () => {
  it('creates, leaves alone, updates and deletes Shoots as main says; --dry-run writes nothing', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'repo.git');
    const runtimes = join(dir.path, 'runtimes');
    for (const file of ['aws.yaml', 'gcp.yaml'])
      await dir.write(`runtimes/${file}`, readFileSync(`examples/runtimes/keb/${file}`, 'utf8'));
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const generate = ['generate', '--landscape', landscape, '--runtimes', runtimes, '--repo', gitdir, '--once'];
    expect((await kimops(generate)).code).toBe(0);
    const apply = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      gardenKubeconfig(),
      '--once',
    ];
    try {
      // Dry run first: the plan, and no Shoot.
      const dry = await kimops([...apply, '--dry-run']);
      expect(dry.stderr).toBe('');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(
        `► Shoot/${project.namespace}/${AWS} created\n    not live: created from this commit\n    ConfigMap structured-auth-config-${AWS}: create\n`,
      );
      expect(dry.stdout).toContain(
        '2 create, 0 update, 0 take-over, 0 delete, 0 unchanged, 0 blocked; nothing written',
      );
      expect(await getShoot(env.garden, project.namespace, AWS)).toBeUndefined();
      expect(await companionsOf(AWS)).toEqual([]);

      // Create: the Shoots and their structured-auth ConfigMaps, owned and annotated with the commit.
      const created = await kimops(apply);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toContain('2 applied, 0 unchanged, 0 blocked, 0 failed');
      const commit = main(gitdir);
      for (const name of [AWS, GCP]) {
        const shoot = await getShoot(env.garden, project.namespace, name);
        expect(shoot?.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
        expect(shoot?.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION]).toBe(commit);
        const companions = await companionsOf(name);
        expect(companions.map((c) => c.metadata.name)).toEqual([`structured-auth-config-${name}`]);
        expect((companions[0]?.metadata.labels as Record<string, string>)[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
      }

      // Once Gardener (the simulator) has reconciled them, a second sync leaves the Shoots' specs alone and
      // configures their clusters from skr/, recording the folder tree it applied on each Shoot.
      await eventually('the Shoots to be created', async () =>
        (await Promise.all([AWS, GCP].map((n) => getShoot(env.garden, project.namespace, n)))).every(settled)
          ? true
          : undefined,
      );
      const configured = await kimops(apply);
      expect(configured.stderr).toBe('');
      expect(configured.stdout).toContain('0 applied, 2 unchanged, 0 blocked, 0 failed');
      for (const name of [AWS, GCP]) {
        const annotations = (await getShoot(env.garden, project.namespace, name))?.metadata.annotations ?? {};
        const tree = annotations[APPLIED_TREE_ANNOTATION] ?? '';
        expect(tree).not.toBe('');
        expect(annotations[SKR_APPLIED_TREE_ANNOTATION]).toBe(tree);
        expect(configured.stdout).toContain(
          `${name}: SKR: recorded ${SKR_APPLIED_TREE_ANNOTATION} ${tree.slice(0, 12)} on Shoot ${name}\n`,
        );
      }

      // A third sync writes nothing: neither the Shoots nor their clusters.
      const before = await resourceVersions();
      const again = await kimops(apply);
      expect(again.stderr).toBe('');
      expect(again.stdout).toContain('0 applied, 2 unchanged, 0 blocked, 0 failed');
      expect(again.stdout).not.toContain('SKR:');
      expect(await resourceVersions()).toEqual(before);

      // A Runtime's worker maximum changes: generate merges the update, apply writes it.
      writeFileSync(
        join(runtimes, 'aws.yaml'),
        readFileSync(join(runtimes, 'aws.yaml'), 'utf8').replace('maximum: 20', 'maximum: 25'),
      );
      expect((await kimops(generate)).code).toBe(0);
      const dryUpdate = await kimops([...apply, '--dry-run']);
      expect(dryUpdate.stdout).toContain(`► Shoot/${project.namespace}/${AWS} configured`);
      expect(dryUpdate.stdout).toMatch(/maximum/);
      const updated = await kimops(apply);
      expect(updated.stderr).toBe('');
      expect(updated.stdout).toContain('1 applied, 1 unchanged, 0 blocked, 0 failed');
      const aws = await getShoot(env.garden, project.namespace, AWS);
      expect(aws?.spec.provider.workers[0]?.maximum).toBe(25);
      expect(aws?.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION]).toBe(main(gitdir));

      // KEB deletes a Runtime (marked for deletion, as KIM's finalizer keeps it in the KCP): generate auto-merges
      // the delete, apply confirms and deletes; the companion follows once Gardener (the simulator) has removed the Shoot.
      const gcpFile = join(runtimes, 'gcp.yaml');
      writeFileSync(
        gcpFile,
        readFileSync(gcpFile, 'utf8').replace(
          /^metadata:\n/m,
          'metadata:\n  deletionTimestamp: "2026-12-01T10:00:00Z"\n',
        ),
      );
      expect(readFileSync(gcpFile, 'utf8')).toContain('deletionTimestamp');
      expect((await kimops(generate)).code).toBe(0);
      const deleted = await kimops(apply);
      expect(deleted.stderr).toBe('');
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toContain(`${GCP}: deletion of Shoot ${GCP} confirmed and requested`);
      expect(deleted.stdout).toMatch(
        new RegExp(
          `${GCP}: (Gardener is deleting Shoot ${GCP}; ConfigMap structured-auth-config-${GCP} left for a sync after it is gone|Shoot ${GCP} is gone)`,
        ),
      );
      const deleting = await getShoot(env.garden, project.namespace, GCP);
      if (deleting) {
        expect(deleting.metadata.annotations?.[DELETION_CONFIRMATION_ANNOTATION]).toBe('true');
        expect(deleting.metadata.deletionTimestamp).toBeTruthy();
      }
      await eventually(`${GCP} to be gone`, async () =>
        (await getShoot(env.garden, project.namespace, GCP)) ? undefined : true,
      );
      const cleaned = await kimops(apply);
      expect(cleaned.stderr).toBe('');
      expect(cleaned.code).toBe(0);
      expect(await companionsOf(GCP)).toEqual([]);
      expect(await companionsOf(AWS)).toHaveLength(1);
      expect(cleaned.stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
      // Left over only when the Shoot was still there at the deleting sync.
      if (deleting)
        expect(cleaned.stdout).toContain(`deleted ConfigMap structured-auth-config-${GCP} (its Shoot ${GCP} is gone)`);
    } finally {
      for (const name of [AWS, GCP]) await deleteShoot(env.garden, project.namespace, name);
      await eventually('the Shoots to be gone', async () =>
        (await resourceVersions()).every((v) => v === undefined) ? true : undefined,
      );
    }
  }, 120_000);
});

describe('kimops apply --watch', () => {
  it('syncs every commit main gets until it is stopped', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'repo.git');
    const runtimes = join(dir.path, 'runtimes');
    await dir.write('runtimes/aws.yaml', readFileSync('examples/runtimes/keb/aws.yaml', 'utf8'));
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const generate = ['generate', '--landscape', landscape, '--runtimes', runtimes, '--repo', gitdir, '--once'];
    expect((await kimops(generate)).code).toBe(0);
    const controller = new AbortController();
    const metricsPort = await freePort();
    const watching = kimops(
      [
        'apply',
        '--landscape',
        landscape,
        '--repo',
        gitdir,
        '--garden-kubeconfig',
        gardenKubeconfig(),
        '--watch',
        '--interval',
        '1',
        '--metrics-port',
        String(metricsPort),
      ],
      '',
      controller.signal,
    );
    try {
      await eventually(`${AWS} created`, async () =>
        (await getShoot(env.garden, project.namespace, AWS)) ? true : undefined,
      );
      // The next syncs find it in place; the scrape endpoint says so.
      await eventually('the metrics of a sync in place', async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return text.includes('kimops_applier_shoots{landscape="stage",action="unchanged"} 1') &&
          /kimops_applier_sync_duration_seconds_count\{landscape="stage",outcome="ok"\} [1-9]/.test(text)
          ? true
          : undefined;
      });
      // A new commit on main (a worker maximum raised, merged by generate) reaches the Garden on a later sync.
      writeFileSync(
        join(runtimes, 'aws.yaml'),
        readFileSync(join(runtimes, 'aws.yaml'), 'utf8').replace('maximum: 20', 'maximum: 23'),
      );
      expect((await kimops(generate)).code).toBe(0);
      await eventually(`${AWS} scaled`, async () => {
        const shoot = await getShoot(env.garden, project.namespace, AWS);
        return shoot?.spec.provider.workers[0]?.maximum === 23 ? true : undefined;
      });
    } finally {
      controller.abort();
      const result = await watching;
      // Gone before any assertion here can fail: a Shoot left on the shared plane fails later tests' creates.
      await deleteShoot(env.garden, project.namespace, AWS);
      await eventually(`${AWS} to be gone`, async () =>
        (await getShoot(env.garden, project.namespace, AWS)) ? undefined : true,
      );
      expect(result.code).toBe(0);
      // --watch logs records: time, level, component, landscape, message.
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(
        new RegExp(
          `^\\S+Z INFO  applier landscape=\\S+ metrics at http://127\\.0\\.0\\.1:${metricsPort}/metrics$`,
          'm',
        ),
      );
    }
  }, 60_000);

  it('syncs at once on a signed GitHub push delivery although the interval is an hour', async () => {
    const secret = 'webhook-secret';
    const token = 'git-token';
    const landscape = await landscapeForProject(dir, 'landscape-hook', 'stage', project);
    const gitdir = join(dir.path, 'repo-hook.git');
    const runtimes = join(dir.path, 'runtimes-hook');
    await dir.write('runtimes-hook/aws.yaml', readFileSync('examples/runtimes/keb/aws.yaml', 'utf8'));
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const generate = ['generate', '--landscape', landscape, '--runtimes', runtimes, '--repo', gitdir, '--once'];
    expect((await kimops(generate)).code).toBe(0);
    // The applier reads the repo over HTTP into a cache of its own, as it would from GitHub: a merge into gitdir
    // reaches it only by a fetch, which the webhook (or the hour's poll) starts — a local --repo's main is
    // watched as well and would sync without the webhook.
    const gitServer = await startGitServer({ root: dirname(gitdir), token });
    const port = await freePort();
    vi.stubEnv('KIMOPS_WEBHOOK_SECRET', secret);
    vi.stubEnv('KIMOPS_GIT_TOKEN', token);
    const controller = new AbortController();
    const watching = kimops(
      [
        'apply',
        '--landscape',
        landscape,
        '--repo',
        `${gitServer.url}/repo-hook.git`,
        '--cache-dir',
        join(dir.path, 'apply-hook-cache.git'),
        '--garden-kubeconfig',
        gardenKubeconfig(),
        '--watch',
        '--interval',
        '3600',
        '--webhook-port',
        String(port),
      ],
      '',
      controller.signal,
    );
    try {
      // Created, and once Gardener has reconciled it its cluster configured: a Shoot whose reconcile ends with its
      // SKR not yet configured asks for a sync at once, which would also fetch main, so main changes only after.
      await eventually(
        `${AWS} created and its cluster configured`,
        async () => {
          const annotations = (await getShoot(env.garden, project.namespace, AWS))?.metadata.annotations ?? {};
          const tree = annotations[APPLIED_TREE_ANNOTATION];
          return tree !== undefined && annotations[SKR_APPLIED_TREE_ANNOTATION] === tree ? true : undefined;
        },
        20_000,
      );
      writeFileSync(
        join(runtimes, 'aws.yaml'),
        readFileSync(join(runtimes, 'aws.yaml'), 'utf8').replace('maximum: 20', 'maximum: 23'),
      );
      expect((await kimops(generate)).code).toBe(0);
      // Merged, and no delivery yet: longer than the ref watch takes (well under a second), nothing is synced.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect((await getShoot(env.garden, project.namespace, AWS))?.spec.provider.workers[0]?.maximum).toBe(20);
      const body = JSON.stringify({ ref: 'refs/heads/main', after: main(gitdir) });
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-github-delivery': 'd1',
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        },
        body,
      });
      expect(response.status).toBe(202);
      await eventually(
        `${AWS} scaled`,
        async () => {
          const shoot = await getShoot(env.garden, project.namespace, AWS);
          return shoot?.spec.provider.workers[0]?.maximum === 23 ? true : undefined;
        },
        20_000,
      );
    } finally {
      controller.abort();
      vi.unstubAllEnvs();
      const result = await watching;
      await gitServer.stop();
      // Gone before any assertion here can fail: a Shoot left on the shared plane fails later tests' creates.
      await deleteShoot(env.garden, project.namespace, AWS);
      await eventually(`${AWS} to be gone`, async () =>
        (await getShoot(env.garden, project.namespace, AWS)) ? undefined : true,
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`webhook receiver listening on http://127.0.0.1:${port}/`);
      expect(result.stdout).toContain('webhook 202 push d1: push to refs/heads/main');
    }
    // The receiver is closed with the loop: its port is free again.
    expect(await freePort(port)).toBe(port);
  }, 60_000);
});

/** A port nothing listens on (or `port`, if it is free): listen on it, read it, close it. */
function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const { port: found } = probe.address() as { port: number };
      probe.close(() => resolve(found));
    });
  });
}
