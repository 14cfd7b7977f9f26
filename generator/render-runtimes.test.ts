import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversionSettingsOf } from '../model/landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { renderRuntimes, type RuntimeInput } from './render-runtimes.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const settings = conversionSettingsOf(parseLandscape(read('landscapes/dev/landscape.yaml'), 'dev', 'dev'));

function example(plan: string, edit: (runtime: Runtime) => void = () => undefined): RuntimeInput {
  const source = `examples/runtimes/keb/${plan}.yaml`;
  const runtime = parseYaml11(read(source), source) as Runtime;
  edit(runtime);
  return { source, runtime };
}

describe('renderRuntimes', () => {
  it("refuses what the Runtime CRD's schema refuses, naming the field: a misspelt one would be pruned by the API server", () => {
    const typo = example('aws', (runtime) => {
      (runtime.spec.shoot.provider.workers[0] as unknown as Record<string, unknown>).maximun = 40;
    });
    const result = renderRuntimes([typo, example('gcp')], settings);
    expect(result.rendered.map((r) => r.shootName)).toEqual(['c-56a4813']);
    expect(result.failures).toEqual([
      expect.objectContaining({
        field: 'spec.shoot.provider.workers[0].maximun',
        message: expect.stringMatching(
          /^runtime kcp-system\/61dd7761-08dc-59ce-840d-342f5e487157: spec\.shoot\.provider\.workers\[0\]\.maximun: unknown field "maximun".*did you mean "maximum".*\(the Runtime CRD's schema\)$/,
        ),
      }),
    ]);
  });

  it('sorts by Shoot name whatever the input order, companions and the SKR objects before each Shoot', () => {
    const inputs = [example('gcp'), example('aws'), example('azure')];
    const forward = renderRuntimes(inputs, settings);
    const backward = renderRuntimes([...inputs].reverse(), settings);
    expect(forward.failures).toEqual([]);
    expect(forward.rendered.map((r) => r.shootName)).toEqual(['c-56a4813', 'c-78fcc25', 'cf27a69']);
    expect(backward).toEqual(forward);
    for (const rendered of forward.rendered) {
      expect(rendered.mode).toBe('create');
      expect(rendered.manifests.at(-1)?.path).toBe(`shoots/${rendered.shootName}/shoot.yaml`);
      const folder = `shoots/${rendered.shootName}/`;
      expect(rendered.manifests.map((m) => `${m.path.slice(folder.length)} ${m.object.kind}`)).toEqual([
        `configmap-structured-auth-config-${rendered.shootName}.yaml ConfigMap`,
        expect.stringMatching(/^skr\/clusterrolebinding-admin-[0-9a-f]{10}\.yaml ClusterRoleBinding$/),
        'skr/configmap-kyma-provisioning-info.yaml ConfigMap',
        'skr/namespace-kyma-system.yaml Namespace',
        'skr/openidconnect-kyma-oidc-0.yaml OpenIDConnect',
        'shoot.yaml Shoot',
      ]);
    }
  });

  it('reports a failing Runtime as `runtime <ns>/<name>: <field>: <reason>` and renders the others', () => {
    const broken = example('aws', (runtime) => {
      delete runtime.metadata.labels?.['kyma-project.io/region'];
    });
    const result = renderRuntimes([broken, example('gcp')], settings);
    expect(result.rendered.map((r) => r.shootName)).toEqual(['c-56a4813']);
    expect(result.failures).toEqual([
      {
        source: 'examples/runtimes/keb/aws.yaml',
        runtime: 'kcp-system/61dd7761-08dc-59ce-840d-342f5e487157',
        field: expect.any(String),
        message: expect.stringMatching(/^runtime kcp-system\/61dd7761-08dc-59ce-840d-342f5e487157: \S+: .+/),
      },
    ]);
  });

  it('renders neither of two Runtimes that claim the same Shoot', () => {
    const copy = example('aws', (runtime) => {
      runtime.metadata.name = 'copy';
    });
    const result = renderRuntimes([example('aws'), copy, example('gcp')], settings);
    expect(result.rendered.map((r) => r.shootName)).toEqual(['c-56a4813']);
    expect(result.failures.map((f) => f.message)).toEqual([
      'runtime kcp-system/61dd7761-08dc-59ce-840d-342f5e487157: spec.shoot.name: Shoot c-78fcc25 is also rendered from runtime ' +
        'kcp-system/copy (examples/runtimes/keb/aws.yaml); each Runtime needs its own shoot name',
      'runtime kcp-system/copy: spec.shoot.name: Shoot c-78fcc25 is also rendered from runtime ' +
        'kcp-system/61dd7761-08dc-59ce-840d-342f5e487157 (examples/runtimes/keb/aws.yaml); each Runtime needs its own shoot name',
    ]);
  });

  it('renders in update mode against the live Shoot of the same name and lists live Shoots nobody asked for', () => {
    const [created] = renderRuntimes([example('aws')], settings).rendered;
    const live = created?.manifests.at(-1)?.object as unknown as Shoot;
    const stray = { ...live, metadata: { ...live.metadata, name: 'stray' } };
    const result = renderRuntimes(
      [example('aws')],
      settings,
      new Map([
        [live.metadata.name, live],
        ['stray', stray],
      ]),
    );
    expect(result.rendered.map((r) => r.mode)).toEqual(['update']);
    expect(result.unusedLiveShoots).toEqual(['stray']);
  });

  it('reports a crash of the converter as a bug of that Runtime and still renders the others', () => {
    const crashing = structuredClone(example('gcp'));
    // A getter that throws stands for any defect in kimops that surfaces on one Runtime only.
    Object.defineProperty(crashing.runtime.spec.shoot, 'region', {
      get: () => {
        throw new TypeError('simulated defect');
      },
    });
    const result = renderRuntimes([example('aws'), crashing], settings);
    expect(result.rendered.map((r) => r.runtime)).toEqual(['kcp-system/61dd7761-08dc-59ce-840d-342f5e487157']);
    expect(result.bugs).toEqual([
      { source: crashing.source, runtime: runtimeRef(crashing.runtime), error: new TypeError('simulated defect') },
    ]);
  });
});
