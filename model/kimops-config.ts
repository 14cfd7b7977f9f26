// The landscape repo's own policy file, `kimops.yaml` at the repo root (docs/design.md §1.4): which landscape
// the repo holds, and how kimops merges, guards and corrects what it proposes there. Pure: the
// caller reads the file and passes its text.
import { Ajv } from 'ajv';
import { VALIDATE_CONTEXT } from './contract.js';
import { ConfigError } from './errors.js';
import { parseGoDuration } from './go-time.js';
import { parseYaml11 } from './yaml-input.js';

export const KIMOPS_CONFIG_API_VERSION = 'kimops.kyma-project.io/v1alpha1';

/** The file at the landscape repo's root. */
export const KIMOPS_YAML = 'kimops.yaml';

/** The change classes a landscape sets a policy for; `immutable` is always blocked and has none. */
const POLICY_CLASSES = [
  'create',
  'delete',
  'update',
  'update-disruptive',
  'rollout',
  'adopt',
  'metadata-only',
  'skr',
  'skr-unrequested',
  'shadow',
  'cut-over',
] as const;
export type PolicyClass = (typeof POLICY_CLASSES)[number];

export type ClassPolicy = { mode: 'auto-merge' } | { mode: 'review'; approvals: number };

export interface MassDeletionGuard {
  /** Most Shoots proposed for deletion at once. */
  maxShoots: number;
  /** Most Shoots proposed for deletion at once, as a percentage of the landscape. */
  maxPercent: number;
}

export interface KimopsConfig {
  apiVersion: typeof KIMOPS_CONFIG_API_VERSION;
  kind: 'KimopsConfig';
  /** The landscape this repo holds: dev, stage, prod (landscapes/<name>/). */
  landscape: string;
  gardener: { project: string };
  /** The validation policies `kimops validate` runs (policies/<set>/). */
  policySet: string;
  /** What the applier does when the live Shoot differs from git. */
  drift: 'correct' | 'report' | 'adopt';
  mergePolicy: Record<PolicyClass, ClassPolicy>;
  /**
   * The checks every merge by kimops waits for on the PR's head, by name: commit status contexts or check run
   * names (a workflow job's). Green means success; kimops merges nothing while one is pending, missing or failed.
   */
  requiredChecks: string[];
  massDeletion: MassDeletionGuard;
  /** Deletions KEB asked for (the Runtime carries a deletionTimestamp): proposed this many per pass, outside the mass-deletion guard. */
  deprovisioning: { batchSize: number };
  /** Landscape-wide changes go out this many Shoots per PR, the next wave once the last is merged. */
  rollout: { waveSize: number };
  /** Who kimops's commits are by (a bot account's noreply address, so the forge links them). */
  commit: { author: { name: string; email: string } };
  apply: ApplySettings;
}

/** How the applier writes to the Garden. */
export interface ApplySettings {
  /** Server-side apply field manager: `kimops`, or KIM's `kim` for a take-over that removes KIM's leftovers (applier/README.md). */
  fieldManager: string;
  /** Whether a deletion stuck on Gardener's force-deletable error codes gets `confirmation.gardener.cloud/force-deletion`. */
  forceDeletion: boolean;
  /** How long a Shoot operation may run before it counts as failed (for the backfiller), in milliseconds; polling goes on. */
  timeouts: { create: number; update: number; delete: number };
  /** Requests per second to the Garden and the burst above it (KIM's --gardener-ratelimiter-qps/-burst). */
  qps: number;
  burst: number;
  /** Shoots written at the same time within those limits. */
  concurrency: number;
}

/**
 * KIM's client limits (5 QPS, burst 5); KEB's own budgets for an operation: provisioning and deprovisioning
 * 60 minutes, an update 180 minutes — an operation running longer has failed for KEB whatever Gardener tries.
 */
export const DEFAULT_APPLY: Readonly<ApplySettings> = {
  fieldManager: 'kimops',
  forceDeletion: false,
  timeouts: { create: 3_600_000, update: 10_800_000, delete: 3_600_000 },
  qps: 5,
  burst: 5,
  concurrency: 4,
};

/** The author of kimops's commits when kimops.yaml names none. */
export const DEFAULT_COMMIT_AUTHOR: Readonly<{ name: string; email: string }> = {
  name: 'kimops',
  email: 'kimops@localhost',
};

/**
 * docs/design.md §1.5: creates and deletes must not wait for a human (KEB gives provisioning 60 minutes);
 * non-disruptive updates and adoptions of Gardener's own changes neither; disruptive updates and
 * rollouts are reviewed. Inside the cluster (ADR 0004): what the Runtime asked for (administrators, its OIDC)
 * merges as KIM would apply it at once; what no Runtime asked for (the landscape's default OIDC, kimops writing
 * the objects anew) waits for a person, since it changes who may log in to clusters nobody asked to change.
 */
export const DEFAULT_MERGE_POLICY: Readonly<Record<PolicyClass, ClassPolicy>> = {
  create: { mode: 'auto-merge' },
  delete: { mode: 'auto-merge' },
  update: { mode: 'auto-merge' },
  'update-disruptive': { mode: 'review', approvals: 1 },
  rollout: { mode: 'review', approvals: 1 },
  adopt: { mode: 'auto-merge' },
  'metadata-only': { mode: 'auto-merge' },
  skr: { mode: 'auto-merge' },
  'skr-unrequested': { mode: 'review', approvals: 1 },
  // A Shoot KIM leads: main is kimops's shadow of it, and merging changes nothing live (docs/adr/0011).
  shadow: { mode: 'auto-merge' },
  // A cut-over merges alone only where the live Shoot already is what main says; otherwise (or without the Garden)
  // it waits for at least one person whatever this says (merge-policy.ts).
  'cut-over': { mode: 'auto-merge' },
};

/** kimops's own status; a repo on GitHub adds its validate workflow's check (`kimops init` writes both). */
const DEFAULT_REQUIRED_CHECKS: readonly string[] = [VALIDATE_CONTEXT];

/**
 * KEB deprovisions one Runtime at a time (trial expiry in bursts of a few); a render that would delete
 * dozens at once is far more likely a broken Runtime source than real deprovisioning, as in Argo CD's
 * `allowEmpty: false` guard against pruning to zero.
 */
export const DEFAULT_MASS_DELETION: Readonly<MassDeletionGuard> = { maxShoots: 20, maxPercent: 10 };

/**
 * A wave of deprovisionings (trial expiry) is proven one Runtime at a time by its deletionTimestamp, so it
 * flows without a human, but a bounded number per pass: a bug that marked every Runtime for deletion still
 * takes many passes and is seen. 10 stays within DEFAULT_MASS_DELETION.maxShoots, which the applier still
 * applies to the deletions of one sync; a watching generator passes at least once a minute, so ≥ 600 an hour.
 */
export const DEFAULT_DEPROVISIONING_BATCH_SIZE = 10;

/**
 * A first wave small enough that a bad landscape change hurts few clusters and a reviewer can read
 * its table; later waves of the same size keep the blast radius bounded (canary first, like Argo
 * Rollouts' steps). Landscapes with thousands of Shoots raise it in kimops.yaml.
 */
export const DEFAULT_ROLLOUT_WAVE_SIZE = 50;

const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** A positive Go duration such as 90m or 1h30m (parsed by parseGoDuration). */
const GO_DURATION = '^([0-9]+(\\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$';
const CLASS_POLICY = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: { mode: { enum: ['auto-merge', 'review'] }, approvals: { type: 'integer', minimum: 1 } },
} as const;

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'landscape', 'gardener'],
  properties: {
    apiVersion: { const: KIMOPS_CONFIG_API_VERSION },
    kind: { const: 'KimopsConfig' },
    landscape: { type: 'string', pattern: DNS_LABEL, maxLength: 63 },
    gardener: {
      type: 'object',
      additionalProperties: false,
      required: ['project'],
      // Gardener refuses project names longer than 10 characters.
      properties: { project: { type: 'string', pattern: DNS_LABEL, maxLength: 10 } },
    },
    policySet: { type: 'string', pattern: DNS_LABEL },
    drift: { enum: ['correct', 'report', 'adopt'] },
    mergePolicy: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(POLICY_CLASSES.map((c) => [c, CLASS_POLICY])),
    },
    // GitHub caps a status context at 255 characters; a check run's name at 100 characters is stricter.
    requiredChecks: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 255, pattern: '^\\S(.*\\S)?$' },
    },
    massDeletion: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxShoots: { type: 'integer', minimum: 0 },
        maxPercent: { type: 'number', minimum: 0, maximum: 100 },
      },
    },
    rollout: { type: 'object', additionalProperties: false, properties: { waveSize: { type: 'integer', minimum: 1 } } },
    deprovisioning: {
      type: 'object',
      additionalProperties: false,
      properties: { batchSize: { type: 'integer', minimum: 1 } },
    },
    apply: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // A field manager is any name up to 128 characters (apimachinery's ValidateFieldManager).
        fieldManager: { type: 'string', minLength: 1, maxLength: 128 },
        forceDeletion: { type: 'boolean' },
        timeouts: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(
            ['create', 'update', 'delete'].map((op) => [op, { type: 'string', pattern: GO_DURATION }]),
          ),
        },
        qps: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
        burst: { type: 'integer', minimum: 1, maximum: 1000 },
        concurrency: { type: 'integer', minimum: 1, maximum: 64 },
      },
    },
    commit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        author: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'email'],
          // git refuses angle brackets and line breaks in names and addresses.
          properties: {
            name: { type: 'string', minLength: 1, pattern: '^[^<>\\n]+$' },
            email: { type: 'string', minLength: 3, pattern: '^[^<>\\s]+@[^<>\\s]+$' },
          },
        },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile(SCHEMA);

type RawConfig = Omit<
  Partial<KimopsConfig>,
  'mergePolicy' | 'massDeletion' | 'deprovisioning' | 'rollout' | 'commit' | 'apply'
> & {
  apply?: Partial<Omit<ApplySettings, 'timeouts'>> & {
    timeouts?: Partial<Record<keyof ApplySettings['timeouts'], string>>;
  };
  commit?: { author?: { name: string; email: string } };
  rollout?: { waveSize?: number };
  deprovisioning?: { batchSize?: number };
  mergePolicy?: Partial<Record<PolicyClass, { mode: ClassPolicy['mode']; approvals?: number }>>;
  massDeletion?: Partial<MassDeletionGuard>;
};

/**
 * kimops.yaml as read from a landscape repo (undefined: the ref has none), parsed and checked to belong to
 * `landscape`: the generator and the applier both refuse a repo of another landscape the same way.
 */
export function landscapeRepoConfig(
  text: string | undefined,
  at: { repo: string; ref: string; source: string },
  landscape: string,
): KimopsConfig {
  if (text === undefined)
    throw new ConfigError(
      '--repo',
      '',
      `${at.repo} has no ${KIMOPS_YAML} on ${at.ref}; create the landscape repo with kimops init`,
    );
  const config = parseKimopsConfig(text, at.source);
  if (config.landscape !== landscape)
    throw new ConfigError(
      '--landscape',
      '',
      `${at.repo} holds landscape ${config.landscape}, not ${landscape}; pass the matching landscape or repo`,
    );
  return config;
}

/** `kimops.yaml` text → a complete config with docs/design.md §1.5 defaults; one ConfigError listing every problem. */
export function parseKimopsConfig(text: string, source = KIMOPS_YAML): KimopsConfig {
  const data = parseYaml11(text, source);
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((error) => {
      const at = error.instancePath.slice(1).replaceAll('/', '.');
      const key = error.params['additionalProperty'] ?? error.params['missingProperty'];
      const field = [at, key].filter(Boolean).join('.');
      const detail =
        error.keyword === 'additionalProperties'
          ? 'is not a known key; check its spelling'
          : error.keyword === 'required'
            ? 'is required; add it'
            : error.keyword === 'enum'
              ? `must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`
              : error.keyword === 'const'
                ? `must be ${JSON.stringify(error.params['allowedValue'])}`
                : (error.message ?? error.keyword);
      return `${field || '(root)'}: ${detail}`;
    });
    const [first] = problems;
    throw new ConfigError(
      source,
      '',
      problems.length === 1 && first
        ? first
        : `${problems.length} problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  const raw = data as RawConfig;
  const mergePolicy = { ...DEFAULT_MERGE_POLICY };
  for (const name of POLICY_CLASSES) {
    const given = raw.mergePolicy?.[name];
    if (!given) continue;
    if (given.mode === 'auto-merge' && given.approvals !== undefined) {
      throw new ConfigError(
        source,
        `mergePolicy.${name}.approvals`,
        'only applies to mode: review; remove it or switch the mode',
      );
    }
    mergePolicy[name] =
      given.mode === 'review' ? { mode: 'review', approvals: given.approvals ?? 1 } : { mode: 'auto-merge' };
  }
  return {
    apiVersion: KIMOPS_CONFIG_API_VERSION,
    kind: 'KimopsConfig',
    landscape: raw.landscape as string,
    gardener: { project: (raw.gardener as { project: string }).project },
    policySet: raw.policySet ?? 'default',
    drift: raw.drift ?? 'report',
    mergePolicy,
    requiredChecks: raw.requiredChecks ?? [...DEFAULT_REQUIRED_CHECKS],
    massDeletion: { ...DEFAULT_MASS_DELETION, ...raw.massDeletion },
    deprovisioning: { batchSize: raw.deprovisioning?.batchSize ?? DEFAULT_DEPROVISIONING_BATCH_SIZE },
    rollout: { waveSize: raw.rollout?.waveSize ?? DEFAULT_ROLLOUT_WAVE_SIZE },
    commit: { author: raw.commit?.author ?? { ...DEFAULT_COMMIT_AUTHOR } },
    apply: applySettingsOf(raw.apply, source),
  };
}

/**
 * kimops.yaml's text with `requiredChecks` set to `checks`: the template's one-line `requiredChecks: [...]`
 * replaced (comments and layout kept), or the key appended when the text has none.
 */
export function withRequiredChecks(text: string, checks: readonly string[]): string {
  const line = `requiredChecks: [${checks.map((check) => JSON.stringify(check)).join(', ')}]`;
  const oneLine = /^requiredChecks:[ \t]*\[[^\n\]]*\][ \t]*$/m;
  // The block form (one check per line) is not rewritten: refused rather than left half-changed.
  if (/^requiredChecks:/m.test(text) && !oneLine.test(text))
    throw new ConfigError(KIMOPS_YAML, 'requiredChecks', 'could not be set: write it on one line, as [a, b]');
  const next = oneLine.test(text) ? text.replace(oneLine, line) : `${text.replace(/\n*$/, '\n')}${line}\n`;
  parseKimopsConfig(next);
  return next;
}

function applySettingsOf(raw: RawConfig['apply'], source: string): ApplySettings {
  const { timeouts, ...rest } = raw ?? {};
  const parsed = { ...DEFAULT_APPLY.timeouts };
  for (const [op, text] of Object.entries(timeouts ?? {}) as [keyof ApplySettings['timeouts'], string][]) {
    const nanos = parseGoDuration(text);
    if (nanos === undefined || nanos < 1e9)
      throw new ConfigError(
        source,
        `apply.timeouts.${op}`,
        `${text} is not a duration of a second or more, e.g. 90m or 1h30m`,
      );
    parsed[op] = Math.round(nanos / 1e6);
  }
  return { ...DEFAULT_APPLY, ...rest, timeouts: parsed };
}
