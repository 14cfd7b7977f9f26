// The release as files: the workflow (.github/workflows/release.yml), the Dockerfile, package.json's "files" and
// CHANGELOG.md, and the landscape repo's workflow that installs a release (repo-template/.github/workflows/
// validate.yml), checked the way a reviewer would: they parse, actions are pinned by commit (the same commits
// everywhere), Node is the one kimops targets everywhere, values reach the scripts through the environment, a
// release is installed only after its sha512 is checked and with the dependencies its npm-shrinkwrap.json pins, the
// image runs as a non-root user, the package holds every file kimops reads at runtime, and the version has its
// notes. That the packed kimops really installs and runs is test/integration/package-install.test.ts, and that the
// landscape repo's workflow runs, test/integration/standalone/landscape-workflow.test.ts.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { WorkflowStep as Step } from '../test/helpers/workflow-runner.js';
import { changelogSection, pinNotes, tagVersion } from './release-notes.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (path: string) => readFile(join(ROOT, path), 'utf8');

interface Workflow {
  on: { push?: { tags?: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, { permissions?: Record<string, string>; steps: Step[]; env?: Record<string, string> }>;
}

/** Each `uses:` line of a workflow file: every one pinned by a full commit id, its release in a comment. */
function pinnedActions(text: string): Map<string, string> {
  const pins = new Map<string, string>();
  for (const line of text.split('\n').filter((l) => /^\s*-?\s*uses:/.test(l))) {
    expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$/);
    const [, action, pin] = /uses: ([\w./-]+)@(.*)$/.exec(line) ?? [];
    pins.set(action ?? '', pin ?? '');
  }
  return pins;
}

async function releaseWorkflow(): Promise<{ text: string; workflow: Workflow; steps: Step[]; scripts: string }> {
  const text = await read('.github/workflows/release.yml');
  const workflow = parse(text) as Workflow;
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  return { text, workflow, steps, scripts: steps.map((step) => step.run ?? '').join('\n') };
}

/** The Node major kimops targets, as scripts/node-lts.sh (and so .ci/run) installs it. */
async function targetNodeMajor(): Promise<number> {
  const major = /^MAJOR=(\d+)$/m.exec(await read('scripts/node-lts.sh'))?.[1];
  expect(major).toBeDefined();
  return Number(major);
}

describe('the release workflow', () => {
  it('runs on a version tag, reads the repository by default and writes only the release and the image', async () => {
    const { workflow } = await releaseWorkflow();
    expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(Object.values(workflow.jobs).map((job) => job.permissions)).toEqual([
      { contents: 'write', packages: 'write' },
    ]);
  });

  it('pins every action by a full commit id and names its release in a comment', async () => {
    const { text, steps } = await releaseWorkflow();
    const uses = text.split('\n').filter((line) => /^\s*-?\s*uses:/.test(line));
    expect(uses).toHaveLength(steps.filter((step) => step.uses !== undefined).length);
    expect(uses.length).toBeGreaterThan(0);
    pinnedActions(text);
    // The checkout leaves no token behind for the later steps to find.
    expect(steps.find((step) => step.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({
      'persist-credentials': false,
    });
  });

  it("pins CI's actions the same way, to the same commits", async () => {
    const ci = pinnedActions(await read('.github/workflows/ci.yml'));
    expect(ci.size).toBeGreaterThan(0);
    const release = pinnedActions((await releaseWorkflow()).text);
    for (const [action, pin] of ci) if (release.has(action)) expect(pin).toBe(release.get(action));
  });

  it('sets up the Node kimops targets, as CI and the image do', async () => {
    const { steps, workflow } = await releaseWorkflow();
    const major = await targetNodeMajor();
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(major);
    expect(Object.values(workflow.jobs)[0]?.env?.BASE_IMAGE).toBe(`node:${major}-bookworm-slim`);
    expect(await read('Dockerfile')).toContain(`ARG NODE_IMAGE=node:${major}-bookworm-slim\n`);
  });

  it('checks, tests, packs, runs the package, builds and pushes the image and releases with the notes', async () => {
    const { scripts } = await releaseWorkflow();
    const order = [
      'git merge-base --is-ancestor "$GITHUB_SHA" origin/main',
      'npm ci',
      'npx tsx scripts/release-notes.ts "$TAG" > "$RUNNER_TEMP/notes.md"',
      'npm run lint',
      'npm run typecheck',
      'npm test',
      'npm pack',
      'package/npm-shrinkwrap.json | cmp - "$GITHUB_WORKSPACE/package-lock.json"',
      'sha512sum "kimops-$VERSION.tgz" > "kimops-$VERSION.tgz.sha512"',
      'npm ci --omit=dev --ignore-scripts',
      'cli/kimops-bin.js" demo',
      'npx tsx scripts/release-notes.ts --pin "$TAG" "$RUNNER_TEMP/pack/kimops-$VERSION.tgz" "$url" >> "$RUNNER_TEMP/notes.md"',
      'docker build',
      '--build-arg "NODE_IMAGE=$BASE_IMAGE@$digest"',
      'docker push',
      'gh release create "$TAG" "$RUNNER_TEMP/pack/kimops-$VERSION.tgz" "$RUNNER_TEMP/pack/kimops-$VERSION.tgz.sha512"',
      '--notes-file "$RUNNER_TEMP/notes.md"',
    ];
    const at = order.map((part) => scripts.indexOf(part));
    expect(order.filter((_, i) => (at[i] ?? -1) < 0)).toEqual([]);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('hands values to its scripts through the environment, never as ${{ }} inside a script', async () => {
    const { scripts } = await releaseWorkflow();
    expect(scripts).not.toContain('${{');
  });
});

describe("the landscape repo's workflow (repo-template/.github/workflows/validate.yml)", () => {
  async function validateWorkflow() {
    const text = await read('repo-template/.github/workflows/validate.yml');
    const workflow = parse(text) as Workflow;
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    return { text, workflow, steps };
  }

  it('reads the repository only, and names the release it installs in three values kimops init fills in', async () => {
    const { workflow } = await validateWorkflow();
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.env).toEqual({
      KIMOPS_VERSION: '{{kimopsVersion}}',
      KIMOPS_TARBALL_URL: '{{kimopsTarballUrl}}',
      KIMOPS_TARBALL_SHA512: '{{kimopsTarballSha512}}',
    });
  });

  it("pins its actions to the commits kimops's own workflows use, and sets up the Node kimops targets", async () => {
    const { text, steps } = await validateWorkflow();
    const pins = pinnedActions(text);
    const release = pinnedActions((await releaseWorkflow()).text);
    expect([...pins.keys()].sort()).toEqual(['actions/checkout', 'actions/setup-node']);
    for (const [action, pin] of pins) expect(pin).toBe(release.get(action));
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(
      await targetNodeMajor(),
    );
    expect(steps.find((step) => step.uses?.startsWith('actions/checkout@'))?.with).toEqual({
      'fetch-depth': 0,
      'persist-credentials': false,
    });
  });

  it('installs kimops only after its sha512 matched, with the pinned dependencies, outside the checkout; never from npm by name', async () => {
    const { steps } = await validateWorkflow();
    const install = steps.find((step) => step.run?.includes('sha512sum'));
    expect(install?.['working-directory']).toBe('${{ runner.temp }}');
    const script = install?.run ?? '';
    const order = [
      '! $KIMOPS_TARBALL_SHA512 =~ ^[0-9a-f]{128}$',
      'exit 1',
      'curl --fail',
      '"$KIMOPS_TARBALL_URL"',
      'sha512sum --check --strict',
      'tar -xzf kimops.tgz',
      'npm ci --omit=dev --ignore-scripts',
      'test "$(bin/kimops --version)" = "$KIMOPS_VERSION"',
      '>> "$GITHUB_PATH"',
    ];
    const at = order.map((part) => script.indexOf(part));
    expect(order.filter((_, i) => (at[i] ?? -1) < 0)).toEqual([]);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    const scripts = steps.map((step) => step.run ?? '').join('\n');
    expect(scripts).not.toMatch(/\bnpx\b|npm (install|i|exec)\b/);
    expect(scripts).not.toContain('${{');
  });

  it('validates the change on a pull request and all of main otherwise, as GitHub annotations', async () => {
    const { steps } = await validateWorkflow();
    const runs = steps.filter((step) => step.run?.startsWith('kimops validate'));
    expect(runs.map((step) => [step.if, step.run])).toEqual([
      ["github.event_name == 'pull_request'", 'kimops validate . --base "origin/$BASE_REF" --output github'],
      ["github.event_name != 'pull_request'", 'kimops validate . --output github'],
    ]);
    expect(runs[0]?.env).toEqual({ BASE_REF: '${{ github.base_ref }}' });
  });
});

describe('the package pins its dependencies', () => {
  it('packs package-lock.json as npm-shrinkwrap.json (prepack) and leaves none behind in the checkout (postpack)', async () => {
    const pkg = JSON.parse(await read('package.json')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toContain('npm-shrinkwrap.json');
    expect(pkg.scripts.prepack).toMatch(
      /&& node --eval "fs\.copyFileSync\('package-lock\.json', 'npm-shrinkwrap\.json'\)"$/,
    );
    expect(pkg.scripts.postpack).toBe(`node --eval "fs.rmSync('npm-shrinkwrap.json', { force: true })"`);
  });

  it("the release notes say how to install it pinned, with the workflow's three values", () => {
    const sha512 = 'ab'.repeat(64);
    const url = 'https://github.com/kyma-project/kimops/releases/download/v1.2.3/kimops-1.2.3.tgz';
    const notes = pinNotes({ version: '1.2.3', url, sha512 });
    expect(notes).toContain(`echo "${sha512}  kimops-1.2.3.tgz" | sha512sum --check`);
    expect(notes).toContain(
      'kimops init --landscape <name|dir> --release-tarball kimops-1.2.3.tgz --reviewers @<org>/<team> <dir|url>',
    );
    expect(notes).toContain(
      `env:\n  KIMOPS_VERSION: '1.2.3'\n  KIMOPS_TARBALL_URL: '${url}'\n  KIMOPS_TARBALL_SHA512: '${sha512}'\n`,
    );
    // A release elsewhere (a fork, GitHub Enterprise) names its URL for kimops init.
    const fork = 'https://github.example.com/acme/kimops/releases/download/v1.2.3/kimops-1.2.3.tgz';
    expect(pinNotes({ version: '1.2.3', url: fork, sha512 })).toContain(
      `--release-tarball kimops-1.2.3.tgz --release-url ${fork} --reviewers`,
    );
  });
});

describe('the Dockerfile', () => {
  it('builds in one stage and runs in another, as a numeric non-root user, kimops as the entry point', async () => {
    const dockerfile = await read('Dockerfile');
    const instructions = dockerfile
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(instructions.filter((line) => line.startsWith('FROM '))).toEqual([
      'FROM ${NODE_IMAGE} AS build',
      'FROM ${NODE_IMAGE}',
    ]);
    const runtime = instructions.slice(instructions.indexOf('FROM ${NODE_IMAGE}'));
    expect(runtime.filter((line) => line.startsWith('USER '))).toEqual(['USER 65532:65532']);
    expect(runtime).toContain('ENTRYPOINT ["kimops"]');
    // Only the unpacked package (dist/, the shipped files, production dependencies) reaches the runtime stage.
    expect(runtime.filter((line) => line.startsWith('COPY '))).toEqual(['COPY --from=build /opt/kimops /opt/kimops']);
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(dockerfile).not.toMatch(/^ADD /m);
  });

  it('gets a build context of only what the build reads: the sources and every shipped path (.dockerignore)', async () => {
    const lines = (await read('.dockerignore')).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(lines[0]).toBe('*');
    const allowed = lines.filter((line) => line.startsWith('!')).map((line) => line.slice(1).replace(/\/$/, ''));
    const pkg = JSON.parse(await read('package.json')) as { files: string[] };
    const build = JSON.parse(await read('tsconfig.build.json')) as { include: string[]; extends: string };
    // dist/ and npm-shrinkwrap.json are made in the build, by npm pack (prepack).
    const made = new Set(['dist/', 'npm-shrinkwrap.json']);
    const needed = [
      'package.json',
      'package-lock.json',
      'tsconfig.build.json',
      build.extends.replace(/^\.\//, ''),
      ...build.include,
      ...pkg.files.filter((entry) => !made.has(entry)).map((entry) => entry.replace(/\/$/, '')),
    ];
    const letIn = (path: string) => allowed.some((entry) => path === entry || path.startsWith(`${entry}/`));
    expect(needed.filter((path) => !letIn(path))).toEqual([]);
  });
});

describe('the package', () => {
  it('ships every file kimops reads from its package at runtime ("files" in package.json)', async () => {
    const pkg = JSON.parse(await read('package.json')) as { files: string[]; bin: Record<string, string> };
    const read_ = new Set<string>();
    for (const folder of ['model', 'rules', 'generator', 'applier', 'backfiller', 'adapters', 'cli']) {
      for (const file of await readdir(join(ROOT, folder), { recursive: true })) {
        if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
        for (const call of (await read(join(folder, file))).matchAll(/packagePath\(([^)]*)\)/g)) {
          const segments = [...(call[1] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]);
          if (segments.length > 0) read_.add(segments.join('/'));
        }
      }
    }
    // package.json is in every package; package-lock.json never is (the plan cache's stamp does without it);
    // cli/kimops.ts is looked for only to tell a checkout from the package (model/package-root.ts runsFromCheckout).
    const probed = new Set(['package.json', 'package-lock.json', 'cli/kimops.ts']);
    const needed = [...read_].filter((path) => !probed.has(path)).sort();
    expect(needed).toEqual(expect.arrayContaining(['crds/runtime.yaml', 'policies', 'repo-template']));
    const covered = (path: string) =>
      pkg.files.some((entry) => path === entry.replace(/\/$/, '') || path.startsWith(entry.replace(/\/?$/, '/')));
    expect(needed.filter((path) => !covered(path))).toEqual([]);
    expect(pkg.files).toEqual(expect.arrayContaining(['dist/', ...Object.values(pkg.bin).map((b) => b.slice(2))]));
  });
});

describe('CHANGELOG.md', () => {
  it("has a section for package.json's version", async () => {
    const { version } = JSON.parse(await read('package.json')) as { version: string };
    expect(tagVersion(`v${version}`)).toBe(version);
    const changelog = await read('CHANGELOG.md');
    expect(changelog).toMatch(new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    expect(changelogSection(changelog, version)).toMatch(/^### /m);
  });

  it('gives a section its body, up to the next version and without link definitions', () => {
    const changelog = [
      '# Changelog',
      '## [Unreleased]',
      '## [1.1.0] - 2026-12-02',
      '### Fixed',
      '- b',
      '## 1.0.0 - 2026-12-01',
      '### Added',
      '- a',
      '',
      '[1.1.0]: https://example.com/1.1.0',
    ].join('\n');
    expect(changelogSection(changelog, '1.1.0')).toBe('### Fixed\n- b');
    expect(changelogSection(changelog, '1.0.0')).toBe('### Added\n- a');
    expect(changelogSection(changelog, 'Unreleased')).toBeUndefined();
    expect(changelogSection(changelog, '1.0')).toBeUndefined();
    expect(changelogSection(changelog, '2.0.0')).toBeUndefined();
  });

  it('reads a version from a release tag', () => {
    expect(tagVersion('v0.2.0')).toBe('0.2.0');
    expect(tagVersion('v1.0.0-rc.1')).toBe('1.0.0-rc.1');
    expect(['0.2.0', 'v0.2', 'v0.2.0+build', 'release-0.2.0'].map(tagVersion)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
