// The differential test against KIM's own converter (docs/converter.md, "The KIM oracle"): every Runtime of
// test/fixtures/kim-oracle/ rendered by kimops under the same KIM configuration, compared with what KIM's converter
// made of it — create cases with KIM's Shoot, patch cases with the Shoot as KIM's patch leaves it, the
// structured-authentication ConfigMap byte for byte, refusals by reason. A difference fails the test unless it is
// one of DELIBERATE, each with the ADR that says why; each of those must still occur, so the list cannot go stale.
// An integration test only for its time (some 2,800 renders, seconds): it needs no control plane.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { desiredFromFiles } from '../../../applier/desired.js';
import { planSync } from '../../../applier/plan.js';
import { renderRuntimes } from '../../../generator/render-runtimes.js';
import { DEFAULT_MASS_DELETION } from '../../../model/kimops-config.js';
import type { ConversionSettings } from '../../../model/landscape.js';
import { fileMapOf } from '../../../rules/landscape-layout.js';
import type { Shoot } from '../../../model/shoot.js';
import { hasDedicatedAuditLogMark } from '../../../rules/audit-log.js';
import { differencesOf, loadOracle, type Difference, type OracleCase } from '../../helpers/kim-oracle.js';

interface Deliberate {
  what: string;
  adr: string;
  matches: (difference: Difference, c: OracleCase) => boolean;
}

const AUDIT_LOG_TENANT =
  /^\/spec\/(?:extensions\[shoot-auditlog-service\]\/providerConfig\/(?:tenantID|serviceURL)|resources\[auditlog-credentials\]\/resourceRef\/name)$/;

const DELIBERATE: Deliberate[] = [
  {
    what: "update mode keeps the live audit-log tenant of a Runtime with auditLogAccessEnabled (it may be the customer's dedicated one)",
    adr: 'docs/adr/0003-dedicated-audit-log-is-kept.md',
    // Only the live tenant as the live Shoot holds it: its tenant, URL and the Secret its extension reads, together.
    matches: (d, c) =>
      c.mode === 'patch' &&
      AUDIT_LOG_TENANT.test(d.path) &&
      (c.runtime.spec.auditLogAccessEnabled === true || hasDedicatedAuditLogMark(c.existingShoot as Shoot)) &&
      d.ours === liveAuditLog(c.existingShoot as Shoot, d.path),
  },
  {
    what: "update mode keeps the live workers' order and adds new ones after them (KIM's sort is unstable for them)",
    adr: 'docs/adr/0002-update-mode-follows-kim-with-stated-differences.md',
    matches: (d, c) => c.mode === 'patch' && d.path === '/spec/provider/workers#order',
  },
  {
    what: "a zone added to a dual-stack AWS Shoot keeps its load balancer controller (KIM's regenerated config drops it)",
    adr: 'docs/adr/0002-update-mode-follows-kim-with-stated-differences.md',
    matches: (d, c) => c.mode === 'patch' && d.path === '/spec/provider/controlPlaneConfig/loadBalancerController',
  },
  {
    what: 'a secretBindingName Gardener cannot hold is refused at conversion (KIM converts it; Gardener refuses the Shoot)',
    adr: 'docs/adr/0002-update-mode-follows-kim-with-stated-differences.md',
    matches: (d) => d.path === 'refusal' && /: spec\.shoot\.secretBindingName: /.test(String(d.ours)),
  },
  {
    what: 'in update mode a field the Runtime no longer asks for goes (maintenance window, EU access, seed selector)',
    adr: 'docs/adr/0010-update-mode-says-what-the-runtime-asks.md',
    matches: (d, c) =>
      c.mode === 'patch' &&
      d.ours === undefined &&
      ['/spec/maintenance/timeWindow', '/spec/accessRestrictions', '/spec/seedSelector'].includes(d.path),
  },
];

/** The live Shoot's tenant ID, URL, or the Secret its audit-log extension reads (through the resource it names). */
function liveAuditLog(live: Shoot, path: string): unknown {
  const config = live.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig ?? {};
  if (path.endsWith('/tenantID')) return config.tenantID;
  if (path.endsWith('/serviceURL')) return config.serviceURL;
  return live.spec.resources?.find((r) => r.name === config.secretReferenceName)?.resourceRef.name;
}

/** kimops's ownership labels, which a take-over adds (and a hand-back removes): the only write a take-over makes. */
const OWN_LABEL = /^(?:companion [^ ]+ )?metadata\.labels(?:\["kimops\.kyma-project\.io\/[a-z-]+"\])?$/;

/**
 * The field paths the applier's plan would write when it takes over the live Shoot (and its structured-auth
 * ConfigMap) from KIM, main holding kimops's render of the Runtime against it; undefined when kimops refuses.
 */
function takeOverChanges(c: OracleCase, live: Shoot, settings: ConversionSettings): string[] | undefined {
  const [rendered] = renderRuntimes(
    [{ source: c.id, runtime: c.runtime }],
    settings,
    new Map([[live.metadata.name, live]]),
  ).rendered;
  if (!rendered) return undefined;
  const plan = planSync({
    desired: desiredFromFiles(fileMapOf(rendered.manifests)),
    live: [live],
    liveCompanions: c.kim.companions ?? [],
    commit: 'kim-oracle',
    massDeletion: DEFAULT_MASS_DELETION,
  });
  const [entry] = plan.entries;
  return [
    ...(entry?.object.changes ?? []).map((change) => change.path),
    ...(entry?.companions ?? []).flatMap((companion) =>
      companion.changes.map((change) => `companion ${companion.name} ${change.path}`),
    ),
  ];
}

describe("kimops and KIM's own converter over the oracle corpus", () => {
  const { cases, settings } = loadOracle();
  const byId = new Map(cases.map((c) => [c.id, c]));
  const seen = new Map<Deliberate, number>();
  const unexplained: string[] = [];
  for (const c of cases) {
    for (const difference of differencesOf(c, settings.get(c.configVariant) as never, byId)) {
      const deliberate = DELIBERATE.find((d) => d.matches(difference, c));
      if (deliberate) seen.set(deliberate, (seen.get(deliberate) ?? 0) + 1);
      else
        unexplained.push(
          `${c.id} ${difference.path}: kimops ${JSON.stringify(difference.ours)?.slice(0, 200)}, KIM ${JSON.stringify(difference.kim)?.slice(0, 200)}`,
        );
    }
  }

  it('holds the whole corpus: create, patch and second-patch cases of every config variant', () => {
    const rounds = new Set(cases.map((c) => c.id.split('/')[0]));
    expect([...rounds].sort()).toEqual(['create', 'patch', 'patch2']);
    expect(new Set(cases.map((c) => c.configVariant)).size).toBe(settings.size);
    expect(cases.length).toBeGreaterThan(2_500);
  });

  it('differs from KIM only where an ADR says why', () => {
    expect(unexplained.slice(0, 200)).toEqual([]);
  });

  it("changes nothing but kimops's own labels when the applier takes over a Shoot KIM left, nor its ConfigMap", () => {
    // What a take-over does (docs/converter.md): render against the live Shoot, then the applier's plan against it.
    const writes = new Map<string, string[]>();
    let takeOvers = 0;
    for (const c of cases) {
      const live = c.kim.shoot ?? c.kim.effectiveShoot;
      if (!live) continue;
      const changes = takeOverChanges(c, live, settings.get(c.configVariant) as never);
      if (changes === undefined) continue;
      takeOvers++;
      const other = changes.filter((path) => !OWN_LABEL.test(path));
      if (other.length > 0) writes.set(c.id, other);
    }
    expect(takeOvers).toBeGreaterThan(2_500);
    expect([...writes].slice(0, 20)).toEqual([]);
  });

  it.each(DELIBERATE.map((d) => [d.what, d] as const))('still differs on purpose: %s', (_, deliberate) => {
    expect(seen.get(deliberate) ?? 0).toBeGreaterThan(0);
    expect(existsSync(new URL(`../../../${deliberate.adr}`, import.meta.url))).toBe(true);
  });
});
