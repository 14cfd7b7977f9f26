// Runtime (+ landscape settings, + live Shoot) → Shoot, its companions and the objects of its cluster (skr/).
// Pure: values in, values out. Failures a user can cause come back as ConversionError values naming the field.
import { ConversionError, FieldError } from '../../model/errors.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { AuditLogTenant } from '../../model/converter-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import { runtimeRef, type Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type ConfigMap, type Shoot } from '../../model/shoot.js';
import { auditLogTenantFor } from './audit-log-tenant.js';
import type { ConverterContext, ExtenderInput } from './context.js';
import { keepCreateOnlyFields } from '../../rules/live-rules.js';
import { CREATE_EXTENDERS, UPDATE_EXTENDERS } from './pipeline.js';
import { skrObjects } from './skr/index.js';
import { registryCacheStubs, type RegistryCacheStub } from './registry-cache-stubs.js';
import { structuredAuthConfigMap } from './structured-auth.js';
import { validateLiveShoot } from './validate-live-shoot.js';
import { validateRuntime, validateRuntimeNames, validateRuntimeShape } from './validate-runtime.js';
import { gardenNamespaceOf } from '../../model/contract.js';

export interface ConvertInput {
  runtime: Runtime;
  settings: ConversionSettings;
  /** The live Shoot: present → update mode (KIM's patch), absent → create mode. */
  live?: Shoot;
  /** Registry-cache uid → garden Secret name (update mode only), as KIM looks them up by label. */
  registryCacheSecrets?: Record<string, string>;
  /**
   * The tenant of the AuditLog the Runtime claimed (generator/audit-log-claim.ts): rendered instead of the
   * landscape's or the live Shoot's, with the dedicated mark.
   */
  dedicatedAuditLog?: AuditLogTenant;
}

export type ConversionResult =
  | {
      ok: true;
      shoot: Shoot;
      companions: ConfigMap[];
      /** What the applier applies inside the Shoot's cluster once it is reconciled (skr/index.ts). */
      skr: KubeObject[];
      /** Data-less stubs of the registry caches' garden Secrets (registry-cache-stubs.ts). */
      registryCache: RegistryCacheStub[];
    }
  | { ok: false; error: ConversionError };

export function convertRuntime(input: ConvertInput): ConversionResult {
  const { runtime, settings } = input;
  return guarded(runtime, () => {
    validateRuntimeShape(runtime);
    if (input.live) validateLiveShoot(input.live);
    // KIM refuses a Runtime without an audit-log tenant before it looks at its labels: the same reason first.
    const auditLog = input.dedicatedAuditLog ?? auditLogTenantFor(runtime, settings, input.live);
    validateRuntimeNames(runtime);
    const ctx: ConverterContext = {
      config: settings.config,
      flags: settings.flags,
      auditLog,
      ...(input.dedicatedAuditLog && { dedicatedAuditLog: true }),
      maintenanceWindow: maintenanceWindowFor(runtime, settings),
      acl: settings.acl,
      registryCacheSecrets: input.registryCacheSecrets,
    };
    const { shoot, companions } = runPipeline(runtime, ctx, input.live);
    return {
      shoot,
      companions,
      skr: skrObjects({ runtime, shoot, defaultOidc: settings.skrDefaultOidc }),
      registryCache: registryCacheStubs(
        runtime,
        shoot.metadata.namespace ?? '',
        input.registryCacheSecrets,
        input.live,
      ),
    };
  });
}

/**
 * The converter proper, given KIM's per-Runtime inputs directly (this is the seam the KIM parity
 * fixtures test). Throws FieldError; use convertRuntime for a result value.
 */
export function convertWithContext(
  runtime: unknown,
  ctx: ConverterContext,
  live?: Shoot,
): { shoot: Shoot; companions: ConfigMap[] } {
  validateRuntime(runtime);
  if (live) validateLiveShoot(live);
  return runPipeline(runtime, ctx, live);
}

/** Gardener's limit on project name + Shoot name (they form the Shoot's technical ID). */
const MAX_PROJECT_AND_SHOOT_NAME = 21;

function runPipeline(runtime: Runtime, ctx: ConverterContext, live?: Shoot): { shoot: Shoot; companions: ConfigMap[] } {
  const project = ctx.config.gardener?.projectName ?? '';
  const name = runtime.spec.shoot.name;
  if (project !== '' && project.length + name.length > MAX_PROJECT_AND_SHOOT_NAME) {
    throw new FieldError(
      'spec.shoot.name',
      `"${name}" is too long for project ${project}: Gardener allows ${MAX_PROJECT_AND_SHOOT_NAME} characters for both names together; use at most ${MAX_PROJECT_AND_SHOOT_NAME - project.length}`,
    );
  }
  const namespace = gardenNamespaceOf(project);
  const { shoot: spec } = runtime.spec;
  const draft: Shoot = {
    apiVersion: SHOOT_API_VERSION,
    kind: 'Shoot',
    metadata: { name: spec.name, namespace },
    spec: {
      purpose: spec.purpose,
      region: spec.region,
      networking: {
        ...(spec.networking.type !== undefined && { type: spec.networking.type }),
        nodes: spec.networking.nodes,
        pods: spec.networking.pods,
        services: spec.networking.services,
      },
      ...(spec.controlPlane && { controlPlane: structuredClone(spec.controlPlane) }),
      kubernetes: {},
      provider: { type: spec.provider.type, workers: [] },
    },
  };
  const input: ExtenderInput = { runtime, ctx, live };
  for (const extend of live ? UPDATE_EXTENDERS : CREATE_EXTENDERS) extend(draft, input);
  if (live) keepCreateOnlyFields(draft, live);
  return { shoot: draft, companions: [structuredAuthConfigMap(input, namespace)] };
}

/** Production Shoots only, and only where the landscape has a window for the region (KIM's rule). */
function maintenanceWindowFor(runtime: Runtime, settings: ConversionSettings) {
  const { purpose, region } = runtime.spec.shoot;
  if (purpose !== 'production' || !Object.hasOwn(settings.maintenanceWindows, region)) return undefined;
  return settings.maintenanceWindows[region];
}

function guarded<T>(runtime: unknown, convert: () => T): ({ ok: true } & T) | { ok: false; error: ConversionError } {
  const ref = runtimeRef(runtime);
  try {
    return { ok: true, ...convert() };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, error: new ConversionError(ref, error.field, error.detail) };
    throw error;
  }
}
