// The base a checkout's change is judged against, with an in-memory repo: which files it keeps, how a ref
// is found, and whose kimops.yaml rules. `cli/validate.test.ts` runs it on a real checkout.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { changeConfig, readChangeBase } from './change-base.js';

const CONFIG = (policySet: string) =>
  `apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener: {project: dev}\npolicySet: ${policySet}\n`;
const BASE = 'b'.repeat(40);

/** A repo whose only commit is BASE, reached as refs/remotes/origin/main. */
function repo(files: Record<string, string>) {
  const reads: string[] = [];
  return {
    reads,
    resolve: (ref: string) => Promise.resolve(ref === 'refs/remotes/origin/main' || ref === BASE ? BASE : undefined),
    readFiles: (commit: string) =>
      Promise.resolve(
        new Map(
          Object.entries(commit === BASE ? files : {}).map(([path, text]) => [
            path,
            {
              read: () => {
                reads.push(path);
                return Promise.resolve(text);
              },
            },
          ]),
        ),
      ),
    readFile: (commit: string, path: string) => Promise.resolve(commit === BASE ? files[path] : undefined),
  };
}

const atBase = {
  'kimops.yaml': CONFIG('default'),
  'shoots/a/shoot.yaml': 'a at base',
  'shoots/gone/shoot.yaml': 'deleted in the checkout',
  'README.md': 'readme at base',
  'notes.md': 'deleted in the checkout',
};

describe('readChangeBase', () => {
  it("keeps the base's Shoot folders and the other files the checkout also holds", async () => {
    const git = repo(atBase);
    const checkout = new Map([
      ['kimops.yaml', CONFIG('lenient')],
      ['shoots/a/shoot.yaml', 'a changed'],
      ['README.md', 'readme changed'],
    ]);
    const base = await readChangeBase(git, 'origin/main', checkout, '/srv/landscape');
    expect(base.ref).toBe('origin/main');
    expect(base.kimopsYaml).toBe(CONFIG('default'));
    expect([...base.files]).toEqual([
      ['kimops.yaml', CONFIG('default')],
      ['shoots/a/shoot.yaml', 'a at base'],
      ['shoots/gone/shoot.yaml', 'deleted in the checkout'],
      ['README.md', 'readme at base'],
    ]);
    expect(git.reads).not.toContain('notes.md');
  });

  it('takes a commit as the ref too, and names a ref it cannot find with the fix', async () => {
    expect((await readChangeBase(repo(atBase), BASE, new Map(), '/srv/landscape')).files.size).toBe(2);
    const missing = readChangeBase(repo(atBase), 'origin/nope', new Map(), '/srv/landscape');
    await expect(missing).rejects.toThrow(ConfigError);
    await expect(readChangeBase(repo(atBase), 'origin/nope', new Map(), '/srv/landscape')).rejects.toThrow(
      'origin/nope is not a branch, remote branch or commit of /srv/landscape; fetch it',
    );
  });
});

describe('changeConfig', () => {
  const checkout = new Map([['kimops.yaml', CONFIG('lenient')]]);

  it("takes the base's kimops.yaml when there is a base: a pull request does not choose its own rules", async () => {
    const base = await readChangeBase(repo(atBase), 'origin/main', checkout, '/srv/landscape');
    expect(changeConfig(checkout, base, '/srv/landscape/kimops.yaml').policySet).toBe('default');
  });

  it("takes the checkout's without a base, and names the file it read in a problem", () => {
    expect(changeConfig(checkout, undefined, '/srv/landscape/kimops.yaml').policySet).toBe('lenient');
    expect(() => changeConfig(new Map(), undefined, '/srv/landscape/kimops.yaml')).toThrow(
      '/srv/landscape/kimops.yaml',
    );
    const noConfigAtBase = { ref: 'origin/main', kimopsYaml: undefined, files: new Map() };
    expect(() => changeConfig(new Map(), noConfigAtBase, '/srv/landscape/kimops.yaml')).toThrow(
      'kimops.yaml at origin/main',
    );
  });
});
