// The Garden's own word on a checked change (`kimops validate --garden-kubeconfig`): each created or updated
// Shoot applied with dryRun=All as the applier's field manager, its companions first. A dry-run creates
// nothing, so a Shoot whose companion the Garden does not have yet cannot pass gardener-apiserver's
// reference checks: it is not dry-run, and a warning says why. The Garden is a port a KubeClient fits.
import { FIELD_MANAGER } from '../../model/contract.js';
import { TransportError } from '../../model/errors.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure, type KubeResult } from '../../model/kube-result.js';
import { parseYamlDocuments } from '../../model/yaml-input.js';
import { isRegistryCachePath, isSkrPath } from '../../rules/landscape-layout.js';
import type { Finding, RepoCheckReport } from './repo-check.js';

/** The two calls the dry run makes on the Garden; `label` names it in a transport failure. */
interface DryRunGarden {
  readonly label: string;
  apply(object: KubeObject, fieldManager: string, options: { dryRun: boolean }): Promise<KubeResult<unknown>>;
  get(ref: { apiVersion: string; kind: string; namespace?: string; name: string }): Promise<KubeResult<unknown>>;
}

/**
 * The findings of the Garden's dry run for the Shoots `report` checked, whose files are `files`. A Garden
 * that cannot be reached is a TransportError; a refusal is a finding of the file it refuses.
 */
export async function gardenDryRun(
  garden: DryRunGarden,
  files: ReadonlyMap<string, string>,
  report: Pick<RepoCheckReport, 'shoots'>,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const parsed = (file: string) => {
    const [document] = parseYamlDocuments(files.get(file) ?? '', file);
    return document && !document.error ? (document.value as KubeObject) : undefined; // a broken file is reported by the checks
  };
  const refused = async (file: string, object: KubeObject) => {
    // The applier's field manager: the dry-run sees what its apply would.
    const applied = await garden.apply(object, FIELD_MANAGER, { dryRun: true });
    if (applied.ok) return false;
    if (applied.status === 0) throw new TransportError(`kubeconfig ${garden.label}`, describeFailure(applied));
    findings.push({
      path: file,
      check: 'dry-run',
      severity: 'deny',
      message: `the Garden refuses it: ${describeFailure(applied)}`,
    });
    return true;
  };
  for (const { path, operation } of report.shoots) {
    const shoot = operation === 'DELETE' ? undefined : parsed(path);
    if (!shoot) continue;
    const folder = path.slice(0, path.lastIndexOf('/') + 1);
    const missing: string[] = [];
    // The objects of the cluster (skr/) are not the Garden's: the applier puts them inside the Shoot's cluster.
    for (const file of [...files.keys()]
      .filter((p) => p.startsWith(folder) && p !== path && p.endsWith('.yaml') && !isSkrPath(p))
      .sort()) {
      const companion = parsed(file);
      // A registry cache's stub is no manifest: the applier creates its Secret from the SKR's, and the generator may
      // not read Secrets to know whether it has already.
      if (companion && isRegistryCachePath(file)) {
        missing.push(`${companion.kind} ${companion.metadata.name}`);
        continue;
      }
      if (!companion || (await refused(file, companion))) continue;
      const { apiVersion, kind, metadata } = companion;
      const existing = await garden.get({ apiVersion, kind, namespace: metadata.namespace, name: metadata.name });
      if (!existing.ok && existing.status === 404) missing.push(`${companion.kind} ${companion.metadata.name}`);
    }
    if (missing.length > 0) {
      findings.push({
        path,
        check: 'dry-run',
        severity: 'warn',
        message: `not checked by the Garden: it refers to ${missing.join(', ')}, which the Garden gets only when the applier creates it (a dry-run creates nothing)`,
      });
      continue;
    }
    await refused(path, shoot);
  }
  return findings;
}
