// force-patch-reconciliation through Git (generator/force-patch.ts): a forced Runtime whose Shoot main already
// holds gets one commit raising the Shoot's force-patch counter, merged as its own change; the annotation is then
// taken off the Runtime (here a KCP in memory, written through the same RuntimeSource calls as the real one) and
// the next pass proposes nothing. Suspend wins. A re-apply that waits for a review keeps its counter while open,
// and once a human merged it, the next pass answers the request instead of asking for another.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { localForge } from '../../../adapters/forge/local.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import {
  ANNOTATION_FORCE_PATCH,
  ANNOTATION_SUSPEND_PATCH,
  FORCE_PATCH_ANNOTATION,
  FORCE_PATCH_PROPOSED_ANNOTATION,
} from '../../../model/contract.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { runtimeRef, type Runtime } from '../../../model/runtime.js';
import type { Shoot } from '../../../model/shoot.js';
import { parseYaml11 } from '../../../model/yaml-input.js';
import { generate, type GenerateResult } from '../../../generator/generate.js';
import { runtimeFactWrites } from '../../../generator/runtime-facts.js';
import { reportRuntimeFacts, type RuntimeSource } from '../../../generator/runtime-source.js';
import type { RuntimeInput } from '../../../generator/render-runtimes.js';
import { kimops } from '../../helpers/cli.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('force-patch');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };

/**
 * The Runtimes as a KCP keeps them: each pass reads a copy, and the generator's writes land here as the KCP
 * adapter's do (a merge patch of one annotation; a removal only while each annotation still has its value).
 */
function memoryKcp(inputs: readonly RuntimeInput[]) {
  const stored = new Map(inputs.map((input) => [runtimeRef(input.runtime), structuredClone(input)]));
  const metadataOf = (runtime: Runtime) => (stored.get(runtimeRef(runtime)) as RuntimeInput).runtime.metadata;
  /** The Runtime's annotations as `change` leaves a copy of them. */
  const update = (runtime: Runtime, change: (annotations: Map<string, string>) => void) => {
    const metadata = metadataOf(runtime);
    const annotations = new Map(Object.entries(metadata.annotations ?? {}));
    change(annotations);
    metadata.annotations = Object.fromEntries(annotations);
  };
  const source: RuntimeSource = {
    read: async () => ({ inputs: [...stored.values()].map((entry) => structuredClone(entry)), errors: [] }),
    annotate: async (runtime, name, value) => {
      update(runtime, (annotations) => (value === null ? annotations.delete(name) : annotations.set(name, value)));
      return { ok: true };
    },
    removeAnnotations: async (runtime, expected) => {
      const annotations = metadataOf(runtime).annotations ?? {};
      if (Object.entries(expected).some(([name, value]) => annotations[name] !== value))
        return { ok: false, status: 422, message: 'the test failed', fix: '' };
      update(runtime, (kept) => Object.keys(expected).forEach((name) => kept.delete(name)));
      return { ok: true };
    },
    onChange: () => {},
    stop: async () => {},
  };
  const edit = (index: number, change: (runtime: Runtime) => void) =>
    change(([...stored.values()][index] as RuntimeInput).runtime);
  const annotations = (index: number) => ({
    ...([...stored.values()][index] as RuntimeInput).runtime.metadata.annotations,
  });
  return { source, edit, annotations };
}

/** A dev landscape repo whose main holds the example Runtimes' Shoots (generation 1), and a pass as `generate` runs it. */
async function landscape() {
  const gitdir = `${dir.path}/repo.git`;
  expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
  const repo = await LandscapeRepo.open(gitdir);
  const forge = localForge(repo);
  const runtimes = (await readRuntimes(EXAMPLES)).runtimes.map((r) => ({
    ...r,
    runtime: { ...r.runtime, metadata: { ...r.runtime.metadata, generation: 1 } },
  }));
  const kcp = memoryKcp(runtimes);
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const logs: string[] = [];
  const warnings: string[] = [];
  /** One pass, then its facts and force-patch settlements written onto the Runtimes (cli/generate.ts's order). */
  const pass = async (): Promise<GenerateResult> => {
    const { inputs } = await kcp.source.read();
    const result = await generate({
      landscape: 'dev',
      settings,
      runtimes: inputs,
      runtimesComplete: true,
      repo,
      forge,
      author,
      log: (line) => logs.push(line),
    });
    await reportRuntimeFacts(
      runtimeFactWrites(
        inputs.map((input) => input.runtime),
        result,
      ),
      kcp.source,
      (line) => warnings.push(line),
    );
    return result;
  };
  expect((await pass()).proposed.every((p) => p.action === 'auto-merge')).toBe(true);
  const shoot = runtimes[0]?.runtime.spec.shoot.name as string;
  return { repo, forge, kcp, pass, shoot, logs, warnings };
}

const main = (repo: LandscapeRepo) => repo.resolve('main');
const git = (repo: LandscapeRepo, ...args: string[]) =>
  execFileSync('git', ['--git-dir', repo.gitdir, ...args], { encoding: 'utf8' }).trim();
const counterOnMain = async (repo: LandscapeRepo, shoot: string) =>
  (parseYaml11((await repo.readFile('main', `shoots/${shoot}/shoot.yaml`)) as string, shoot) as Shoot).metadata
    .annotations?.[FORCE_PATCH_ANNOTATION];

describe('force-patch-reconciliation', () => {
  it('with main unchanged: one merged commit raises the counter, the annotation goes, the next pass proposes nothing', async () => {
    const { repo, kcp, pass, shoot, logs, warnings } = await landscape();
    const before = await main(repo);
    kcp.edit(0, (r) => (r.metadata.annotations = { ...r.metadata.annotations, [ANNOTATION_FORCE_PATCH]: 'true' }));

    const forced = await pass();
    expect(forced.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`)).toEqual([
      `${shoot} metadata-only auto-merge`,
    ]);
    expect(await counterOnMain(repo, shoot)).toBe('1');
    // One commit, merged; the only change on main is the counter in the Shoot's file.
    expect(git(repo, 'rev-list', '--no-merges', `${before}..main`).split('\n')).toHaveLength(1);
    expect(git(repo, 'diff', '--unified=0', before as string, 'main').match(/^[-+] .*$/gm)).toEqual([
      `+    ${FORCE_PATCH_ANNOTATION}: "1"`,
    ]);
    expect(kcp.annotations(0)).not.toHaveProperty([ANNOTATION_FORCE_PATCH]);
    expect(kcp.annotations(0)).not.toHaveProperty([FORCE_PATCH_PROPOSED_ANNOTATION]);
    expect(logs.join('\n')).toMatch(new RegExp(`force-patch +${shoot}: .* main holds its re-apply`));

    const after = await main(repo);
    const again = await pass();
    expect(again.proposed).toEqual([]);
    expect(await main(repo)).toBe(after);
    expect(await counterOnMain(repo, shoot)).toBe('1');
    expect(warnings).toEqual([]);
  });

  it('suspended and forced: nothing proposed, nothing written onto the Runtime', async () => {
    const { repo, kcp, pass } = await landscape();
    kcp.edit(
      0,
      (r) =>
        (r.metadata.annotations = {
          ...r.metadata.annotations,
          [ANNOTATION_FORCE_PATCH]: 'true',
          [ANNOTATION_SUSPEND_PATCH]: 'true',
        }),
    );
    const annotations = kcp.annotations(0);
    const before = await main(repo);
    const result = await pass();
    expect(result.proposed).toEqual([]);
    expect(result.forcePatch).toBeUndefined();
    expect(await main(repo)).toBe(before);
    expect(kcp.annotations(0)).toEqual(annotations);
  });

  it("waiting for a review keeps one counter; a human's merge answers the request, with no second re-apply", async () => {
    const { repo, forge, kcp, pass, shoot } = await landscape();
    const config = (await repo.readFile('main', 'kimops.yaml')) as string;
    await repo.commitFiles({
      branch: 'main',
      files: new Map([
        [
          'kimops.yaml',
          config.replace('metadata-only: {mode: auto-merge}', 'metadata-only: {mode: review, approvals: 1}'),
        ],
      ]),
      message: 'review metadata-only changes',
      author,
    });
    kcp.edit(0, (r) => (r.metadata.annotations = { ...r.metadata.annotations, [ANNOTATION_FORCE_PATCH]: 'true' }));

    const [waiting] = (await pass()).proposed;
    expect(waiting).toMatchObject({ shoot, class: 'metadata-only', action: 'await-review' });
    expect(kcp.annotations(0)).toMatchObject({
      [ANNOTATION_FORCE_PATCH]: 'true',
      [FORCE_PATCH_PROPOSED_ANNOTATION]: '1',
    });
    // main unchanged: the same PR, the same counter.
    expect((await pass()).proposed).toMatchObject([{ pr: waiting?.pr, action: 'await-review', unchanged: true }]);

    expect((await forge.approve(waiting?.pr as number, 'test-reviewer')).ok).toBe(true);
    expect((await kimops(['pr', 'merge', String(waiting?.pr), '--repo', repo.gitdir])).code).toBe(0);
    expect(await counterOnMain(repo, shoot)).toBe('1');

    const answered = await pass();
    expect(answered.proposed).toEqual([]);
    expect(answered.forcePatch).toMatchObject([{ shoot, counter: 1, done: true }]);
    expect(kcp.annotations(0)).not.toHaveProperty([ANNOTATION_FORCE_PATCH]);
    expect(kcp.annotations(0)).not.toHaveProperty([FORCE_PATCH_PROPOSED_ANNOTATION]);
    expect(await counterOnMain(repo, shoot)).toBe('1');
  });
});
