// What a user (or an adversary) can put in front of kimops ends in one line naming the file or option, exit
// 1 or 2 — never a stack trace, never exit 70 (kept for bugs), never a hang: each case through the real command.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { kimops, type CliRun } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { EXIT, reportFailure } from './cli-io.js';

const dir = useTempDir('user-errors');
const KEB = 'examples/runtimes/keb';
const AWS = `${KEB}/aws.yaml`;
const AWS_SHOOT = 'c-78fcc25';

/** A user error as kimops must report it: the exit code, and lines of their own without a stack trace or raw control characters. */
function expectUserError(run: CliRun, code: 1 | 2): void {
  expect(run.code).toBe(code);
  expect(run.stderr).not.toMatch(/\n\s+at |internal error|this is a bug/i);
  // eslint-disable-next-line no-control-regex -- control characters are what must not be printed
  expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/);
}

const render = (...options: string[]) => kimops(['render', '--landscape', 'dev', ...options]);

describe('a shoot.yaml on main that is valid YAML but no Shoot', () => {
  it('is reported for its Shoot only; the rest of the pass goes on', async () => {
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
    const runtimes = join(dir.path, 'runtimes');
    await mkdir(runtimes);
    for (const name of ['aws', 'trial']) await cp(`${KEB}/${name}.yaml`, join(runtimes, `${name}.yaml`));
    // The other shapes (a list, a string, another name, two documents) are in generator/main-snapshot.test.ts.
    const files = new Map([
      [`shoots/${AWS_SHOOT}/shoot.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n'],
    ]);
    await (
      await LandscapeRepo.open(gitdir)
    ).commitFiles({
      branch: 'main',
      files,
      message: 'a human commits a ConfigMap as the Shoot',
      author: { name: 'test', email: 'test@localhost' },
    });

    const run = await kimops([
      'generate',
      '--landscape',
      'dev',
      '--runtimes',
      runtimes,
      '--repo',
      gitdir,
      '--forge',
      'local',
      '--once',
    ]);
    expectUserError(run, 1);
    expect(run.stderr).toContain(
      `shoots/${AWS_SHOOT}/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot, found v1 ConfigMap`,
    );
    // trial's Shoot had no folder on main: it is proposed as ever.
    expect(run.stdout).toMatch(/^create +c-168e7cd: #\d+ opened, merged$/m);
  });
});

describe('render --out and init where a folder must be', () => {
  it('render --out naming a file exits 2 with the option and the fix', async () => {
    const file = await dir.write('out.txt', 'mine\n');
    const run = await render('--runtime', AWS, '--out', file);
    expectUserError(run, 2);
    expect(run.stderr).toBe(
      `error: --out: ${file} is a file, not a folder — pass a folder (one that does not exist yet is created); nothing was written\n`,
    );
  });

  it('init under a file exits 2 with <dir> and the fix', async () => {
    const file = await dir.write('somefile', 'mine\n');
    const run = await kimops(['init', '--landscape', 'dev', join(file, 'repo.git')]);
    expectUserError(run, 2);
    expect(run.stderr).toBe(
      `error: <dir>: ${file}/repo.git cannot be created: ${file} is a file, not a folder — pass a path under a folder\n`,
    );
  });

  it('render --out writes nothing through a symbolic link out of the folder', async () => {
    const out = join(dir.path, 'out');
    const outside = join(dir.path, 'outside');
    await mkdir(join(out, 'shoots'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(out, 'shoots', AWS_SHOOT));
    const run = await render('--runtime', AWS, '--out', out);
    expectUserError(run, 2);
    expect(run.stderr).toBe(
      `error: --out: ${out}: shoots/${AWS_SHOOT} leads to ${outside}, outside the output folder, through a symbolic link — kimops writes nothing outside it: remove the link, or pass another folder; nothing was written\n`,
    );
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('YAML no reader should take in full', () => {
  it('a line of 12 MB is read (the fast path declines it) and reported as any other input', async () => {
    // The plain scalar's quotes overflowed the fast path's regex (V8's regexp stack) → exit 70.
    const file = await dir.write(
      'long.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: x${"'y'".repeat(4_000_000)}\n`,
    );
    const run = await render('--runtime', file);
    expectUserError(run, 1);
    expect(run.stderr).toBe(
      `${file}: is a ConfigMap (v1), not a Runtime (infrastructuremanager.kyma-project.io/v1) — pass only Runtime manifests here\n`,
    );
  });

  it('a document nested thousands deep and an alias bomb are refused, each in one line', async () => {
    const deep = await dir.write('deep.yaml', `a: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    const lol = (n: number) =>
      `l${n}: &l${n} [${Array.from({ length: 9 }, () => (n === 0 ? '"lol"' : `*l${n - 1}`)).join(', ')}]`;
    const bomb = await dir.write('bomb.yaml', `${Array.from({ length: 9 }, (_, n) => lol(n)).join('\n')}\n`);
    for (const [file, message] of [
      [
        deep,
        'document 1, line 1: nests deeper than 100 levels (a Kubernetes manifest has a few dozen): check that the file is the manifest meant',
      ],
      [
        bomb,
        "document 1, line 1: expands aliases (*name) past kimops's limit (32 per document), as a YAML bomb does: write the values out instead of using anchors (&) and aliases (*)",
      ],
    ]) {
      const run = await render('--runtime', file as string);
      expectUserError(run, 1);
      expect(run.stderr).toBe(`${file}: ${message}\n`);
    }
  });
});

describe('files that are no files', () => {
  it('a FIFO named *.yaml is refused, not waited on', async () => {
    const fifo = join(dir.path, 'runtime.yaml');
    execFileSync('mkfifo', [fifo]);
    const run = await render('--runtime', fifo);
    expectUserError(run, 1);
    expect(run.stderr).toBe(
      `${fifo}: is a named pipe (FIFO), not a file: kimops reads regular files only — save the content to a file and pass that\n`,
    );
    // Where one file is the whole input (the landscape), it is a usage error.
    const landscape = join(dir.path, 'landscape.yaml');
    execFileSync('mkfifo', [landscape]);
    const usage = await kimops(['render', '--landscape', landscape, '--runtime', AWS]);
    expectUserError(usage, 2);
    expect(usage.stderr).toContain(`${landscape} is a named pipe (FIFO), not a file`);
  });

  it('a *.yaml link to /dev/zero is refused without reading it', async () => {
    const zero = join(dir.path, 'zero.yaml');
    await symlink('/dev/zero', zero);
    const run = await render('--runtime', zero);
    expectUserError(run, 1);
    expect(run.stderr).toBe(
      `${zero}: is a device, not a file: kimops reads regular files only — save the content to a file and pass that\n`,
    );
  });
});

describe('names are printed with their control characters escaped', () => {
  it('a file name and a Runtime name carrying ANSI escapes and line breaks', async () => {
    const runtimes = join(dir.path, 'runtimes');
    await mkdir(runtimes);
    // A ConfigMap in a file whose name clears the screen and forges a line.
    await writeFile(
      join(runtimes, 'a\x1b[2J\nerror: forged.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    );
    // A Runtime whose name does the same, without the labels KIM requires.
    const runtime = execFileSync(
      'sed',
      [
        '-e',
        's/^  name: .*/  name: "b\\\\e[31m\\\\nruntime x\\/y: forged"/',
        '-e',
        '/kyma-project.io\\/region:/d',
        AWS,
      ],
      { encoding: 'utf8' },
    );
    await writeFile(join(runtimes, 'b.yaml'), runtime);
    const run = await render('--runtime', runtimes);
    expectUserError(run, 1);
    expect(run.stderr.split('\n')).toEqual([
      `${runtimes}/a\\x1b[2J\\nerror: forged.yaml: is a ConfigMap (v1), not a Runtime (infrastructuremanager.kyma-project.io/v1) — pass only Runtime manifests here`,
      expect.stringMatching(/^runtime kcp-system\/b\\x1b\[31m\\nruntime x\/y: forged: metadata\.labels/),
      '',
    ]);
  });

  it('a bug’s message is escaped as well, and still says it is a bug (exit 70)', () => {
    let stderr = '';
    const code = reportFailure(new Error("ENOTDIR: mkdir '/x\x1b[2J\nerror: forged'"), {
      stdout: () => undefined,
      stderr: (text) => void (stderr += text),
      readStdin: async () => '',
    });
    expect(code).toBe(EXIT.internal);
    expect(stderr).toContain(
      "error: internal error: ENOTDIR: mkdir '/x\\x1b[2J\\nerror: forged'\nThis is a bug in kimops",
    );
    expect(stderr).not.toContain('\x1b');
  });
});
