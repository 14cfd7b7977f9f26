// IPv4 CIDR arithmetic for zone subnetting and pod-IP budgets. Behaves like Go's net.ParseCIDR:
// host bits may be set ("10.0.0.1/32") and are masked off.

export interface Ipv4Cidr {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefix: number;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function parseIpv4Cidr(text: string): Ipv4Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const octets = text.slice(0, slash).split('.');
  const prefixText = text.slice(slash + 1);
  if (octets.length !== 4 || !octets.every((o) => OCTET.test(o)) || !/^\d{1,2}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > 32) return undefined;
  const address = octets.reduce((acc, o) => acc * 256 + Number(o), 0);
  return { base: address - (address % 2 ** (32 - prefix)), prefix };
}

function formatIpv4Cidr(base: number, prefix: number): string {
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(base / 2 ** shift) % 256);
  return `${octets.join('.')}/${prefix}`;
}

/** Number of addresses in a block of the given prefix length. */
export function blockSize(prefix: number): number {
  return 2 ** (32 - prefix);
}

/** The `index`-th subnet of length `prefix` inside `cidr`, counted from its network address. */
export function subnet(cidr: Ipv4Cidr, prefix: number, index: number): string {
  return formatIpv4Cidr(cidr.base + index * blockSize(prefix), prefix);
}
