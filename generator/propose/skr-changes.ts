// What changes inside a Runtime's cluster, the SKR, between main's `skr/` files and a render's, as a reviewer says
// it: "administrators: + alice@example.com, − bob@example.com", "OIDC kyma-oidc-0: issuerURL a → b". In KIM's
// order (the Namespace, kyma-provisioning-info, the OpenIDConnects, the administrators), then anything else.
import { ConfigError } from '../../model/errors.js';
import { isJsonObject } from '../../model/json.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { describeChange, formatCount, show } from '../../rules/change-text.js';
import { isSkrPath } from '../../rules/landscape-layout.js';
import { PROVISIONING_DETAILS_KEY } from '../../rules/provisioning-info.js';
import { semanticDiff, type FieldChange } from '../../rules/semantic-diff.js';
import type { ChangeClass } from './classify.js';

/** One line of the PR: what (`administrators`, `OIDC kyma-oidc-0`, …) and how it changes. */
export interface SkrChange {
  subject: string;
  detail: string;
}

/** Field changes shown on one line; the rest are counted (the files' diff has them all). */
const SHOWN_FIELDS = 4;

/** Kinds in the order KIM configures them; a kind not listed comes after them. */
const KIND_ORDER = ['Namespace', 'ConfigMap', 'OpenIDConnect', 'ClusterRoleBinding'];

export function skrChangeText({ subject, detail }: SkrChange): string {
  return `${subject}: ${detail}`;
}

/** The SKR files (repo path → text) that differ; none when only the Shoot and its companions change. */
export function skrChanges(
  after: ReadonlyMap<string, string>,
  before: ReadonlyMap<string, string> | undefined,
): SkrChange[] {
  const paths = [...new Set([...after.keys(), ...(before?.keys() ?? [])])]
    .filter((path) => isSkrPath(path) && after.get(path) !== before?.get(path))
    .sort();
  const sides = paths.map((path) => ({ path, before: read(path, before), after: read(path, after) }));
  const kindOf = ({ before: b, after: a }: (typeof sides)[number]) => a?.kind ?? b?.kind;
  const rank = (side: (typeof sides)[number]) => {
    const at = KIND_ORDER.indexOf(kindOf(side) ?? '');
    return at < 0 ? KIND_ORDER.length : at;
  };
  const ordered = sides.sort((a, b) => rank(a) - rank(b));
  const changes: SkrChange[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const side of ordered) {
    if (kindOf(side) === 'ClusterRoleBinding' && (side.before === undefined) !== (side.after === undefined)) {
      // A binding is its user: one comes, one goes.
      if (side.after) added.push(...usersOf(side.after));
      else if (side.before) removed.push(...usersOf(side.before));
      continue;
    }
    changes.push(objectChange(side));
  }
  if (added.length + removed.length > 0)
    changes.push({
      subject: 'administrators',
      detail: [...added.sort().map((user) => `+ ${user}`), ...removed.sort().map((user) => `− ${user}`)].join(', '),
    });
  return changes;
}

interface Sides {
  path: string;
  before?: KubeObject | null;
  after?: KubeObject | null;
}

/** The object of a file; undefined when there is no such file, null when it is no object kimops can read. */
function read(path: string, files: ReadonlyMap<string, string> | undefined): KubeObject | null | undefined {
  const text = files?.get(path);
  if (text === undefined) return undefined;
  try {
    const value = parseYaml11(text, path);
    return isJsonObject(value) && isJsonObject(value.metadata) ? (value as KubeObject) : null;
  } catch (error) {
    if (error instanceof ConfigError) return null;
    throw error;
  }
}

function objectChange({ path, before, after }: Sides): SkrChange {
  const subject = subjectOf(after ?? before, path);
  if (before === null || after === null)
    return { subject, detail: `${before === null ? "main's" : 'the new'} file is no object kimops can read` };
  if (!before) return { subject, detail: `added${summaryOf(after as KubeObject)}` };
  if (!after) return { subject, detail: `removed${summaryOf(before)}` };
  const changes = objectDiff(withDetails(before), withDetails(after)).map((change) => ({
    ...change,
    path: change.path.replace(/^spec\.|^data\.details\./, ''),
  }));
  if (changes.length === 0) return { subject, detail: 'rewritten, the same values' };
  const more = changes.length - SHOWN_FIELDS;
  return {
    subject,
    detail: `${changes.slice(0, SHOWN_FIELDS).map(describeChange).join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`,
  };
}

/** How a reviewer names the object: by what it is for. */
function subjectOf(object: KubeObject | null | undefined, path: string): string {
  const name = object?.metadata.name;
  switch (object?.kind) {
    case 'OpenIDConnect':
      return `OIDC ${name}`;
    case 'ClusterRoleBinding':
      return `administrator ${usersOf(object).join(', ') || name}`;
    case 'ConfigMap':
    case 'Namespace':
      return `${object.kind} ${name}`;
    default:
      return path.slice(path.lastIndexOf('/') + 1);
  }
}

/** What an added or removed OIDC provider is: its issuer and client. */
function summaryOf(object: KubeObject): string {
  if (object.kind !== 'OpenIDConnect' || !isJsonObject(object['spec'])) return '';
  const { issuerURL, clientID } = object['spec'];
  return ` (issuer ${show(issuerURL)}, client ${show(clientID)})`;
}

function usersOf(binding: KubeObject): string[] {
  const subjects = Array.isArray(binding['subjects']) ? binding['subjects'] : [];
  return subjects.flatMap((s) => (isJsonObject(s) && s.kind === 'User' && typeof s.name === 'string' ? [s.name] : []));
}

/** kyma-provisioning-info with its details read as the YAML they are, so a change names the field. */
function withDetails(object: KubeObject): KubeObject {
  const data = object['data'];
  const text = isJsonObject(data) ? data[PROVISIONING_DETAILS_KEY] : undefined;
  if (!isJsonObject(data) || typeof text !== 'string') return object;
  try {
    return { ...object, data: { ...data, [PROVISIONING_DETAILS_KEY]: parseYaml11(text, PROVISIONING_DETAILS_KEY) } };
  } catch (error) {
    if (error instanceof ConfigError) return object;
    throw error;
  }
}

/** semanticDiff compares any object with metadata field by field; its Shoot type is only what it is mostly given. */
function objectDiff(before: KubeObject, after: KubeObject): FieldChange[] {
  return semanticDiff(before as unknown as Shoot, after as unknown as Shoot);
}

/**
 * The class of a change only the cluster's own objects have (the Shoot and its companions the same, or differing in
 * bookkeeping only, `shootChanges`): `skr` when the Runtime asked for it, `skr-unrequested` when not — a landscape
 * change (its skrDefaultOidc) or a kimops that writes the objects anew.
 */
export function skrClass(changes: readonly SkrChange[], requested: boolean, shootChanges: FieldChange[]): ChangeClass {
  const what = [...new Set(changes.map((change) => change.subject))].join(', ');
  const why = requested ? 'the Runtime asked for it' : 'no Runtime asked for it (the landscape or kimops changed)';
  return {
    class: requested ? 'skr' : 'skr-unrequested',
    disruptive: false,
    reasons: [
      `${why}: only objects inside the cluster change (${what}); the Shoot stays as it is, and the applier applies them in the cluster once it is reconciled`,
    ],
    changes: shootChanges,
  };
}
