// Rendering Shoots for integration tests and cleaning them up again on the real Garden.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { conversionSettingsOf, type ConversionSettings } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Runtime } from '../../model/runtime.js';
import type { ConfigMap, Shoot } from '../../model/shoot.js';

const ROOT = new URL('../../', import.meta.url);
export const LANDSCAPES = ['dev', 'stage', 'prod'] as const;
export const DELETION_CONFIRMATION = 'confirmation.gardener.cloud/deletion';

export function landscapeSettings(name: string): ConversionSettings {
  const path = new URL(`landscapes/${name}/landscape.yaml`, ROOT);
  return conversionSettingsOf(parseLandscape(readFileSync(path, 'utf8'), path.pathname, name));
}

/** KEB's example Runtimes by file name (`aws.yaml`, …). */
export function exampleRuntimes(): { file: string; runtime: Runtime }[] {
  const dir = new URL('examples/runtimes/keb/', ROOT);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, runtime: parse(readFileSync(new URL(file, dir), 'utf8')) as Runtime }));
}

export function exampleRuntime(file: string, shootName?: string): Runtime {
  const found = exampleRuntimes().find((e) => e.file === file);
  if (!found) throw new Error(`no example Runtime ${file}`);
  if (shootName) found.runtime.spec.shoot.name = shootName;
  return found.runtime;
}

export function render(
  runtime: Runtime,
  settings: ConversionSettings,
  live?: Shoot,
): { shoot: Shoot; companions: ConfigMap[] } {
  const result = convertRuntime({ runtime, settings, ...(live && { live }) });
  if (!result.ok) throw result.error;
  return result;
}

/** Companions first, then the Shoot, as the applier will: the API server admits nothing else. */
export async function createRendered(
  garden: KubeClient,
  rendered: { shoot: Shoot; companions: ConfigMap[] },
): Promise<Shoot> {
  for (const companion of rendered.companions) {
    const applied = await garden.apply(companion as unknown as KubeObject, 'kimops', { force: true });
    if (!applied.ok) throw new Error(`companion ${companion.metadata.name}: ${describeFailure(applied)}`);
  }
  const created = await garden.create(rendered.shoot as unknown as KubeObject);
  if (!created.ok) throw new Error(`Shoot ${rendered.shoot.metadata.name}: ${describeFailure(created)}`);
  return created.body as unknown as Shoot;
}

export async function getShoot(garden: KubeClient, namespace: string, name: string): Promise<Shoot | undefined> {
  const result = await garden.get({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace, name });
  return result.ok ? (result.body as unknown as Shoot) : undefined;
}

/** Confirms and deletes a Shoot, as Gardener demands; ignores one that is already gone. */
export async function deleteShoot(garden: KubeClient, namespace: string, name: string): Promise<void> {
  const ref = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace, name };
  const confirmed = await garden.patch(ref, { metadata: { annotations: { [DELETION_CONFIRMATION]: 'true' } } });
  if (!confirmed.ok && confirmed.status !== 404)
    throw new Error(`confirm deletion of ${namespace}/${name}: ${describeFailure(confirmed)}`);
  const deleted = await garden.delete(ref);
  if (!deleted.ok && deleted.status !== 404)
    throw new Error(`delete ${namespace}/${name}: ${describeFailure(deleted)}`);
}
