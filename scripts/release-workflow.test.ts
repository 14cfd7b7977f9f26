// The release as files: the workflow (.github/workflows/release.yml), the Dockerfile, package.json's "files" and
// CHANGELOG.md, checked the way a reviewer would: it parses, actions are pinned by commit, Node is the one kimops
// targets everywhere, values reach the scripts through the environment, the image runs as a non-root user, the
// package holds every file kimops reads at runtime, and the version has its notes. That the packed kimops really
// installs and runs is test/integration/package-install.test.ts.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { changelogSection, tagVersion } from './release-notes.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (path: string) => readFile(join(ROOT, path), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push?: { tags?: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { permissions?: Record<string, string>; steps: Step[]; env?: Record<string, string> }>;
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
    for (const line of uses) expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$/);
    // The checkout leaves no token behind for the later steps to find.
    expect(steps.find((step) => step.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({
      'persist-credentials': false,
    });
  });

  it("pins CI's actions the same way", async () => {
    const uses = (await read('.github/workflows/ci.yml')).split('\n').filter((line) => /^\s*-?\s*uses:/.test(line));
    expect(uses.length).toBeGreaterThan(0);
    for (const line of uses) expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$/);
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
      'node_modules/.bin/kimops" demo',
      'docker build',
      '--build-arg "NODE_IMAGE=$BASE_IMAGE@$digest"',
      'docker push',
      'gh release create "$TAG" "$RUNNER_TEMP/pack/kimops-$VERSION.tgz"',
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
    const needed = [
      'package.json',
      'package-lock.json',
      'tsconfig.build.json',
      build.extends.replace(/^\.\//, ''),
      ...build.include,
      ...pkg.files.filter((entry) => entry !== 'dist/').map((entry) => entry.replace(/\/$/, '')),
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
    // package.json is in every package; package-lock.json never is (the plan cache's stamp does without it).
    const needed = [...read_].filter((path) => path !== 'package.json' && path !== 'package-lock.json').sort();
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
