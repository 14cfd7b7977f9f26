// Pod-IP budgets: a node can hold at most a /24 of pods, and all nodes' maxPods together must fit
// into the Shoot's pods CIDR. KIM enforces both; so do we.

/** One node's pods fit in a /24 (Gardener's default node CIDR mask). */
export const MAX_PODS_PER_NODE = 254;

/** Usable addresses in an IPv4 pods CIDR (network and broadcast excluded, RFC 3021 for /31). */
export function maxPodsFromCidr(podsCidr: string): number {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(podsCidr);
  if (!match || match.slice(1, 5).some((o) => Number(o) > 255)) {
    throw new Error(`"${podsCidr}" is not an IPv4 CIDR`);
  }
  const mask = Number(match[5]);
  if (mask > 32) throw new Error(`"${podsCidr}" has a mask above 32`);
  if (mask < 2) throw new Error(`"${podsCidr}" is too large for a pods CIDR`);
  if (mask === 32) return 1;
  if (mask === 31) return 2;
  return 2 ** (32 - mask) - 2;
}

/**
 * Lowers maxPods from the last worker backwards (never below 1) until the sum fits totalIPs.
 * Workers without maxPods (undefined) are left alone and do not count.
 */
export function applyTotalMaxPodsCap(maxPods: (number | undefined)[], totalIPs: number): (number | undefined)[] {
  if (totalIPs < 1) throw new Error(`the pods CIDR offers ${totalIPs} addresses; it must offer at least 1`);
  const capped = [...maxPods];
  let excess = capped.reduce<number>((sum, v) => sum + (v ?? 0), 0) - totalIPs;
  for (let i = capped.length - 1; i >= 0 && excess > 0; i--) {
    const value = capped[i];
    if (value === undefined) continue;
    const cut = Math.min(excess, value - 1);
    capped[i] = value - cut;
    excess -= cut;
  }
  if (excess > 0) {
    throw new Error(`the workers need at least ${totalIPs + excess} pod IPs but the pods CIDR offers ${totalIPs}`);
  }
  return capped;
}
