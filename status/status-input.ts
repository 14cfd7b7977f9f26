// What `kimops status` builds a landscape's status from: compact values the gatherer (cli/status-sources.ts) read
// from the KCP, the Garden, the landscape repo and its forge, and nothing more. Each object is cut down to the few
// fields the status shows, so 10,000 Runtimes and Shoots stay small, and no Secret's data is ever held: of a
// kubeconfig Secret only its last-sync time is here. Types only.
import type { PullRequest } from '../adapters/forge/forge.js';
import type { RuntimeStatus } from '../model/runtime-status.js';
import type { ShootStatus } from '../model/shoot.js';
import type { SourceState } from './landscape-status.js';

/** One entry of `metadata.managedFields`, without the fields it names. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  /** RFC 3339: the newest write of this manager (and operation and subresource). */
  time?: string;
  subresource?: string;
}

export interface StatusRuntime {
  namespace: string;
  name: string;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  managedFields?: readonly ManagedFieldsEntry[];
  /** `spec.shoot.name`. */
  shootName?: string;
  /** As model/runtime-status.ts readRuntimeStatus reads it. */
  status: Partial<RuntimeStatus>;
}

export interface StatusShoot {
  name: string;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  generation?: number;
  deletionTimestamp?: string;
  managedFields?: readonly ManagedFieldsEntry[];
  lastOperation?: ShootStatus['lastOperation'];
  /**
   * The fields main sets that the live Shoot differs in (rules/field-differences.ts), computed only for a Shoot last
   * applied from main's folder as it is now; absent when not computed.
   */
  drift?: readonly string[];
}

export interface StatusMain {
  commit: string;
  committedAt?: string;
  /** Shoot name → the tree oid of its folder on main. */
  folders: ReadonlyMap<string, string>;
}

export interface StatusInput {
  landscape: string;
  /** The landscape's leader for Runtimes without the leader label (rules/leader.ts). */
  defaultLeader?: 'kimops' | 'kim';
  sources: readonly SourceState[];
  /** Absent when the KCP was not read: the rows are then the Shoots. */
  runtimes?: readonly StatusRuntime[];
  /** Absent when the Garden was not read. */
  shoots?: readonly StatusShoot[];
  /** Absent when the repo was not read. */
  main?: StatusMain;
  /** Merge commit → its committer time, for the merged proposals the Runtimes name. */
  mergedAt: ReadonlyMap<string, string>;
  /**
   * The forge's pull requests: the open ones (the backlog), and any other a Runtime's proposal names (to know
   * when it was opened). Absent when the forge was not read.
   */
  pullRequests?: readonly PullRequest[];
  /** Runtime ID → the last-sync time of its kubeconfig Secret; absent when the Secrets were not read. */
  kubeconfigSyncs?: ReadonlyMap<string, string>;
  /** How long a kubeconfig is valid after its sync. */
  kubeconfigExpirationSeconds: number;
  /** The field manager of kimops's applies of the Shoots (kimops.yaml's apply.fieldManager). */
  fieldManager: string;
}
