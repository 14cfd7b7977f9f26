// What a reviewer needs to recognise a cluster that comes or goes: whose Runtime, which plan, where, whose
// account, how big and — for a delete — how old. A create or delete PR shows this instead of every field of the
// manifest as "added" or "removed (was …)"; the manifest itself is in the folded YAML diff or on main.
import { ANNOTATION_RUNTIME_ID } from '../../model/contract.js';
import type { Shoot } from '../../model/shoot.js';
import { formatCount } from '../../rules/change-text.js';

/** The Runtime a proposal is for, as far as it is known. */
export interface ProposalRuntime {
  namespace: string;
  /** The Runtime's name; for an absent Runtime the runtime id its Shoot recorded, or '' when it recorded none. */
  name: string;
  generation?: number;
  /** No Runtime was found for a Shoot deleted from main. */
  absent?: true;
  /** KEB's plan (the Runtime's `kyma-project.io/broker-plan-name` label), where the Runtime was read. */
  plan?: string;
  /** The Runtime's creationTimestamp (RFC 3339): when KEB provisioned it. */
  createdAt?: string;
  /** The Runtime's deletionTimestamp (RFC 3339): when KEB asked for the deletion. */
  deletionRequestedAt?: string;
}

const DAY_MS = 86_400_000;

/** Bullet lines describing the Shoot a create adds or a delete removes. */
export function shootSummary(shoot: Shoot, runtime: ProposalRuntime, change: 'create' | 'delete'): string[] {
  const labels = shoot.metadata.labels ?? {};
  const runtimeId = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
  const lines = [
    `- **Runtime:** ${runtimeText(runtime, runtimeId)}`,
    ...planLine(runtime),
    `- **Provider and region:** ${shoot.spec.provider.type}, ${shoot.spec.region}`,
    `- **Global account:** ${known(labels['account'])}, **subaccount:** ${known(labels['subaccount'])}`,
    `- **Kubernetes:** ${shoot.spec.kubernetes.version ?? 'not set'}`,
    `- **Workers:** ${workersText(shoot)}`,
  ];
  if (change === 'delete') lines.push(`- **Age:** ${ageText(runtime)}`);
  return lines;
}

function runtimeText(runtime: ProposalRuntime, runtimeId: string | undefined): string {
  const id = runtimeId ? `runtime id ${code(runtimeId)}` : 'no runtime id recorded';
  if (runtime.absent) return `none found (${id}, from the Shoot's annotation)`;
  const ref = runtime.namespace === '' ? runtime.name : `${runtime.namespace}/${runtime.name}`;
  const generation = runtime.generation === undefined ? '' : `, generation ${runtime.generation}`;
  return `${code(ref)} (${id}${generation})`;
}

/** KEB's plan is on the Runtime only: where the pass did not pass it on, the line is left out rather than guessed. */
function planLine({ plan, absent }: ProposalRuntime): string[] {
  if (plan !== undefined) return [`- **Plan:** ${code(plan)}`];
  return absent ? ['- **Plan:** not known (its Runtime is gone, and the Shoot does not record it)'] : [];
}

function workersText(shoot: Shoot): string {
  const workers = shoot.spec.provider.workers;
  if (workers.length === 0) return 'none (workerless)';
  return workers
    .map((worker) => {
      const zones = worker.zones && worker.zones.length > 0 ? ` in ${worker.zones.join(', ')}` : '';
      const nodes = worker.minimum === worker.maximum ? `${worker.maximum}` : `${worker.minimum}–${worker.maximum}`;
      return `${code(worker.name)} ${worker.machine.type}, ${nodes} nodes${zones}`;
    })
    .join('; ');
}

/**
 * From the Runtime's own timestamps, so the text does not change from one pass to the next: how long the
 * cluster's Runtime lived before KEB asked for the deletion.
 */
function ageText({ createdAt, deletionRequestedAt, absent }: ProposalRuntime): string {
  const created = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
  if (Number.isNaN(created))
    return absent ? 'not known (its Runtime is gone, and the Shoot does not record it)' : 'not known';
  const asked = deletionRequestedAt === undefined ? Number.NaN : Date.parse(deletionRequestedAt);
  if (Number.isNaN(asked)) return `Runtime created ${createdAt}`;
  const days = Math.floor((asked - created) / DAY_MS);
  return `${formatCount(days)} ${days === 1 ? 'day' : 'days'} (Runtime created ${createdAt}, deletion asked for ${deletionRequestedAt})`;
}

const known = (value: string | undefined) => (value ? code(value) : 'not recorded');
const code = (text: string) => `\`${text}\``;
