// The check before the backfiller starts: the Garden namespace must exist, or every Shoot would read as gone.
import { describeFailure, type KubeResult } from '../model/kube-result.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import type { BackfillContext } from './ports.js';

/**
 * Refuses to start when the Garden namespace does not exist: a GET of a Shoot in a missing namespace answers
 * 404 like a deleted Shoot, so a wrong project would read every Shoot as gone (and release the finalizers of
 * deleted Runtimes in bulk). GETs the Namespace; a Garden user who may not read Namespaces (403) is checked
 * through the Project instead (`spec.namespace`). A missing one is a `ConfigError` naming the landscape, the
 * project and the fix; an API that does not answer a `TransportError`.
 */
export async function verifyGardenNamespace(
  context: BackfillContext,
  landscape: { name: string; project: string },
): Promise<void> {
  const namespace = context.gardenNamespace;
  const refuse = (found: string) =>
    new ConfigError(
      `landscape ${landscape.name}`,
      'gardener.project',
      `${found} in the Garden of --garden-kubeconfig ${context.garden.label} (${context.garden.server}): every Shoot would read as gone. ` +
        `Set gardener.project (or the converter config's gardener.projectName) to the Project whose namespace holds the Shoots, or pass the Garden's kubeconfig; nothing was written`,
    );
  // Every failure here is a ConfigError or a TransportError: the CLI reports those (a StepError would read as a bug).
  const unreachable = (result: Extract<KubeResult<unknown>, { ok: false }>, what: string) =>
    result.status === 0 || result.status === 429 || result.status >= 500
      ? new TransportError(`kubeconfig ${context.garden.label}`, describeFailure(result))
      : new ConfigError(
          `--garden-kubeconfig ${context.garden.label}`,
          '',
          `read ${what} on ${context.garden.server}: ${describeFailure(result)}; the backfiller checks that the Garden namespace exists before it starts: give this user get on that Namespace or on Project ${landscape.project}`,
        );
  const got = await context.garden.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
  if (got.ok) return;
  if (got.status === 404) throw refuse(`namespace ${namespace} (project ${landscape.project}) does not exist`);
  if (got.status !== 403) throw unreachable(got, `Namespace ${namespace}`);
  const project = await context.garden.get<KubeObject & { spec?: { namespace?: string } }>({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Project',
    name: landscape.project,
  });
  if (!project.ok) {
    if (project.status === 404) throw refuse(`Project ${landscape.project} does not exist`);
    throw unreachable(project, `Project ${landscape.project}`);
  }
  const actual = project.body.spec?.namespace;
  if (actual !== undefined && actual !== namespace)
    throw refuse(`Project ${landscape.project} has namespace ${actual}, not ${namespace}`);
}
