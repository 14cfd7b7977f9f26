// Many Runtimes → their Shoots laid out for the landscape repo. Pure: a Runtime that fails is reported
// and the others are still rendered; the result is sorted by Shoot name, so it never depends on input order.
import { convertRuntime } from './convert/index.js';
import type { AuditLogTenant } from '../model/converter-config.js';
import { ConfigError, ConversionError } from '../model/errors.js';
import type { ConversionSettings } from '../model/landscape.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import { validateRuntimeSchema } from '../model/schemas/runtime-schema.js';
import type { Shoot } from '../model/shoot.js';
import { shootManifests, type Manifest } from '../rules/landscape-layout.js';

export interface RuntimeInput {
  source: string;
  runtime: Runtime;
}

export interface RenderedRuntime {
  /** `<namespace>/<name>` of the Runtime. */
  runtime: string;
  source: string;
  shootName: string;
  /** update: rendered against the live Shoot (KIM's patch); create: no live Shoot was given. */
  mode: 'create' | 'update';
  /** Companions first, then the objects of its cluster (`skr/`), the Shoot last; server-set fields removed. */
  manifests: Manifest[];
}

export interface RenderFailure {
  source: string;
  runtime: string;
  field: string;
  /** `runtime <ns>/<name>: <field>: <reason>`. */
  message: string;
}

/** A Runtime the converter crashed on: a bug in kimops, reported apart from the user's failures. */
export interface RenderBug {
  source: string;
  runtime: string;
  error: unknown;
}

export interface RenderResult {
  rendered: RenderedRuntime[];
  failures: RenderFailure[];
  /** Crashes; the other Runtimes are still rendered. */
  bugs: RenderBug[];
  /** Live Shoots no Runtime asked for. */
  unusedLiveShoots: string[];
}

export function renderRuntimes(
  inputs: readonly RuntimeInput[],
  settings: ConversionSettings,
  liveShoots: ReadonlyMap<string, Shoot> = new Map(),
  /** Registry-cache uid → garden Secret (update mode), as the registry-cache controller named it. */
  registryCacheSecrets: Record<string, string> = {},
  /** By Runtime (`<namespace>/<name>`): the tenant of the AuditLog it claimed (audit-log-pass.ts). */
  dedicatedAuditLogs: ReadonlyMap<string, AuditLogTenant> = new Map(),
): RenderResult {
  const rendered: RenderedRuntime[] = [];
  const { unique: renderable, failures } = withoutSharedShootNames(inputs);
  const bugs: RenderBug[] = [];
  const usedLiveShoots = new Set<string>();
  for (const { source, runtime } of renderable) {
    const shootName = runtime.spec?.shoot?.name;
    const live = typeof shootName === 'string' ? liveShoots.get(shootName) : undefined;
    if (live) usedLiveShoots.add(live.metadata.name);
    let outcome: ReturnType<typeof renderOne>;
    try {
      outcome = renderOne(runtime, settings, live, registryCacheSecrets, dedicatedAuditLogs.get(runtimeRef(runtime)));
    } catch (error) {
      // One Runtime's crash must not cost the others their render.
      bugs.push({ source, runtime: runtimeRef(runtime), error });
      continue;
    }
    if (outcome instanceof ConversionError) failures.push(failureOf(source, outcome));
    else rendered.push({ runtime: runtimeRef(runtime), source, mode: live ? 'update' : 'create', ...outcome });
  }
  return {
    rendered: rendered.sort((a, b) => (a.shootName < b.shootName ? -1 : a.shootName > b.shootName ? 1 : 0)),
    failures,
    bugs,
    unusedLiveShoots: [...liveShoots.keys()].filter((name) => !usedLiveShoots.has(name)).sort(),
  };
}

function renderOne(
  runtime: Runtime,
  settings: ConversionSettings,
  live: Shoot | undefined,
  registryCacheSecrets: Record<string, string>,
  dedicatedAuditLog: AuditLogTenant | undefined,
): { shootName: string; manifests: Manifest[] } | ConversionError {
  const ref = runtimeRef(runtime);
  // What the KCP API server would refuse (or silently prune: a misspelt field from a file) is refused here.
  const [problem] = validateRuntimeSchema(runtime);
  if (problem)
    return new ConversionError(
      ref,
      problem.path,
      `${problem.message}${problem.fix ? `; ${problem.fix}` : ''} (the Runtime CRD's schema)`,
    );
  const result = convertRuntime({
    runtime,
    settings,
    registryCacheSecrets,
    ...(live && { live }),
    ...(dedicatedAuditLog && { dedicatedAuditLog }),
  });
  if (!result.ok) return result.error;
  try {
    return {
      shootName: result.shoot.metadata.name,
      manifests: shootManifests(result.shoot, result.companions, result.skr, result.registryCache),
    };
  } catch (error) {
    // The layout refuses names that would leave shoots/; they come from the Runtime's shoot name.
    if (error instanceof ConfigError)
      return new ConversionError(ref, 'spec.shoot.name', `the rendered ${error.message}`);
    throw error;
  }
}

/**
 * Two Runtimes asking for the same Shoot would overwrite each other's files: neither is rendered.
 * Decided on the inputs (the converter names the Shoot after spec.shoot.name), so a caller that
 * renders only some Runtimes still sees every clash.
 */
export function withoutSharedShootNames(inputs: readonly RuntimeInput[]): {
  unique: RuntimeInput[];
  failures: RenderFailure[];
} {
  const byShoot = new Map<unknown, RuntimeInput[]>();
  for (const input of inputs)
    byShoot.set(input.runtime.spec?.shoot?.name, [...(byShoot.get(input.runtime.spec?.shoot?.name) ?? []), input]);
  const failures: RenderFailure[] = [];
  const unique = inputs.filter((input) => {
    const shootName = input.runtime.spec?.shoot?.name;
    const sharing =
      typeof shootName === 'string' ? (byShoot.get(shootName) ?? []).filter((other) => other !== input) : [];
    if (sharing.length === 0) return true;
    const ref = runtimeRef(input.runtime);
    const others = sharing.map((other) => `${runtimeRef(other.runtime)} (${other.source})`).join(', ');
    failures.push(
      failureOf(
        input.source,
        new ConversionError(
          ref,
          'spec.shoot.name',
          `Shoot ${String(shootName)} is also rendered from runtime ${others}; each Runtime needs its own shoot name`,
        ),
      ),
    );
    return false;
  });
  return { unique, failures };
}

function failureOf(source: string, error: ConversionError): RenderFailure {
  return { source, runtime: error.runtime, field: error.field, message: error.message };
}
