// spec.dns: the Shoot's domain under the landscape's prefix, or Gardener-internal DNS when the
// landscape configures none.
import type { ConverterConfig } from '../../../model/converter-config.js';
import type { Extender } from '../context.js';
import { keepsLiveDns } from '../../../rules/live-rules.js';

export function externalDns(
  config: ConverterConfig,
): { secretName: string; domainPrefix: string; providerType: string } | undefined {
  const dns = config.dns;
  if (!dns?.secretName && !dns?.domainPrefix && !dns?.providerType) return undefined;
  return {
    secretName: dns.secretName ?? '',
    domainPrefix: dns.domainPrefix ?? '',
    providerType: dns.providerType ?? '',
  };
}

export function shootDomain(shootName: string, domainPrefix: string): string {
  return `${shootName}.${domainPrefix}`;
}

export const createDns: Extender = (draft, { runtime, ctx }) => {
  const dns = externalDns(ctx.config);
  if (!dns) return;
  const domain = shootDomain(runtime.spec.shoot.name, dns.domainPrefix);
  draft.spec.dns = {
    domain,
    providers: [
      {
        domains: { include: [domain] },
        primary: true,
        type: dns.providerType,
        credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: dns.secretName },
      },
    ],
  };
};

/** A live Shoot on internal (or legacy) DNS keeps it: Gardener cannot move a Shoot's domain. */
export const patchDns: Extender = (draft, input) => {
  if (keepsLiveDns(input.live)) {
    draft.spec.dns = structuredClone(input.live?.spec.dns);
    return;
  }
  createDns(draft, input);
};
