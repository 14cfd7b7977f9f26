import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import { configAtCommit } from './commit-config.js';

const KIMOPS_YAML =
  'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener:\n  project: kyma-dev\n';
const repoWith = (text: string | undefined) => ({ readFile: async () => text });
const expected = { repo: './landscape-dev.git', landscape: 'dev', project: 'kyma-dev' };

describe('configAtCommit', () => {
  it("gives main's kimops.yaml when it is the landscape's", async () => {
    const { commit, config } = await configAtCommit(repoWith(KIMOPS_YAML), 'c0ffee', expected);
    expect(commit).toBe('c0ffee');
    expect(config).toMatchObject({ landscape: 'dev', gardener: { project: 'kyma-dev' } });
  });

  it.each([
    [
      undefined,
      KIMOPS_YAML,
      '--repo: ./landscape-dev.git has no main branch; create the landscape repo with kimops init',
    ],
    [
      'c0ffee',
      undefined,
      '--repo: ./landscape-dev.git has no kimops.yaml on main; create the landscape repo with kimops init',
    ],
    [
      'c0ffee',
      KIMOPS_YAML.replace('landscape: dev', 'landscape: stage'),
      '--landscape: ./landscape-dev.git holds landscape stage, not dev; pass the matching landscape or repo',
    ],
    [
      'c0ffee',
      KIMOPS_YAML.replace('project: kyma-dev', 'project: kyma-other'),
      'kimops.yaml: gardener.project: is kyma-other, but landscape dev writes to project kyma-dev: make them the same',
    ],
  ])('refuses a commit %s with kimops.yaml %j', async (commit, text, message) => {
    const refused = configAtCommit(repoWith(text), commit, expected);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(message);
  });
});
