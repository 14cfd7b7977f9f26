// While `kimops bootstrap`'s PR is open on a landscape whose main holds no Shoot yet, a generator pass proposes
// nothing (it would open a PR per Shoot beside the one that writes them all) and says why; once the bootstrap is
// merged, passes go on as usual. Real repo (kimops init), the local forge, the CLI as an SRE runs it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { localForge } from '../../../adapters/forge/local.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { bootstrap } from '../../../generator/bootstrap.js';
import { convertRuntime } from '../../../generator/convert/index.js';
import type { RuntimeInput } from '../../../generator/render-runtimes.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import type { Shoot } from '../../../model/shoot.js';
import { kimops } from '../../helpers/cli.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('bootstrap-hold');
const RUNTIME = 'examples/runtimes/keb/aws.yaml';

describe('generate beside an open bootstrap PR', () => {
  it('proposes nothing while it is open, naming it, and goes on once it is merged', async () => {
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const forge = localForge(repo);
    const landscape = await readLandscape('dev');
    const settings = conversionSettingsOf(landscape);
    const runtimes = (await readRuntimes(RUNTIME)).runtimes as RuntimeInput[];
    const live = new Map<string, Shoot>();
    for (const { runtime } of runtimes) {
      const converted = convertRuntime({ runtime, settings });
      if (!converted.ok) throw converted.error;
      live.set(converted.shoot.metadata.name, converted.shoot);
    }
    const opened = await bootstrap({
      landscape,
      settings,
      runtimes,
      runtimesComplete: true,
      gardenShoots: live,
      repo,
      forge,
      author: { name: 'kimops', email: 'kimops@localhost' },
      log: () => undefined,
    });
    const pr = opened.pr?.number;
    expect(opened.pr?.outcome).toBe('opened');

    const generate = ['generate', '--landscape', 'dev', '--runtimes', RUNTIME, '--repo', gitdir, '--once'];
    const held = await kimops(generate);
    expect(held.code, held.stderr).toBe(0);
    expect(`${held.stdout}${held.stderr}`).toContain(
      `bootstrap PR #${pr} (kimops/dev-bootstrap) is open and main holds no Shoot yet: nothing proposed`,
    );
    const during = await forge.listOpenPullRequests();
    expect(during.ok && during.value.map((p) => p.branch)).toEqual(['kimops/dev-bootstrap']);

    expect((await kimops(['pr', 'approve', String(pr), '--repo', gitdir, '--as', 'alice'])).code).toBe(0);
    const merged = await kimops(['pr', 'merge', String(pr), '--repo', gitdir, '--as', 'alice']);
    expect(merged.code, merged.stderr).toBe(0);
    const after = await kimops(generate);
    expect(after.code, after.stderr).toBe(0);
    expect(`${after.stdout}${after.stderr}`).not.toContain('bootstrap PR');
    // main holds the Shoot as bootstrapped from the live one, which the Runtime renders unchanged: nothing to propose.
    const open = await forge.listOpenPullRequests();
    expect(open.ok && open.value).toEqual([]);
    expect(await repo.readFile('main', `shoots/${[...live.keys()][0]}/shoot.yaml`)).toContain('kind: Shoot');
  });
});
