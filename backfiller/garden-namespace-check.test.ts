import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import type { KubeResult } from '../model/kube-result.js';
import { verifyGardenNamespace } from './garden-namespace-check.js';
import { fail, fakeClient, ok } from '../test/helpers/backfiller-doubles.js';

describe('verifyGardenNamespace', () => {
  const landscape = { name: 'dev', project: 'wrong' };
  const context = (answer: (method: string, args: unknown[]) => KubeResult<unknown> | undefined) => ({
    kcp: fakeClient().client,
    garden: fakeClient(answer).client,
    gardenNamespace: 'garden-wrong',
  });

  it('refuses a Garden namespace that does not exist with a ConfigError naming the landscape, the project and the fix', async () => {
    const refused = verifyGardenNamespace(
      context(() => fail(404)),
      landscape,
    );
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      /landscape dev: gardener.project: namespace garden-wrong \(project wrong\) does not exist .*Set gardener.project/,
    );
  });

  it('passes an existing namespace; without permission to read Namespaces, checks the Project', async () => {
    await expect(
      verifyGardenNamespace(
        context(() => undefined),
        landscape,
      ),
    ).resolves.toBeUndefined();
    const forbidden = (project: KubeResult<unknown>) => (method: string, args: unknown[]) =>
      (args[0] as { kind: string }).kind === 'Namespace' ? fail(403) : project;
    await expect(
      verifyGardenNamespace(
        context(forbidden(ok({ metadata: { name: 'wrong' }, spec: { namespace: 'garden-wrong' } }))),
        landscape,
      ),
    ).resolves.toBeUndefined();
    await expect(verifyGardenNamespace(context(forbidden(fail(404))), landscape)).rejects.toThrow(
      /Project wrong does not exist/,
    );
    await expect(
      verifyGardenNamespace(
        context(forbidden(ok({ metadata: { name: 'wrong' }, spec: { namespace: 'garden-other' } }))),
        landscape,
      ),
    ).rejects.toThrow(/has namespace garden-other/);
    // Neither readable: a ConfigError (what the CLI reports as such), not a StepError.
    await expect(verifyGardenNamespace(context(forbidden(fail(403))), landscape)).rejects.toBeInstanceOf(ConfigError);
  });
});
