// Checks shared by the providers' zone generators.
import { FieldError } from '../../../model/errors.js';
import { parseIpv4Cidr, type Ipv4Cidr } from '../support/cidr.js';
import { NODES_FIELD, ZONES_FIELD } from './provider.js';

export function requireUniqueZones(zones: string[], message: (zone: string) => string): void {
  const seen = new Set<string>();
  for (const zone of zones) {
    if (seen.has(zone)) throw new FieldError(ZONES_FIELD, message(zone));
    seen.add(zone);
  }
}

/** Parses the worker CIDR and bounds its prefix, with the messages KIM uses for Azure and Alicloud. */
export function workerCidrWithin(nodesCidr: string, minPrefix: number, maxPrefix: number): Ipv4Cidr {
  const cidr = parseIpv4Cidr(nodesCidr);
  if (!cidr)
    throw new FieldError(
      NODES_FIELD,
      `failed to parse worker network CIDR "${nodesCidr}"; use an IPv4 CIDR like 10.250.0.0/16`,
    );
  if (cidr.prefix > maxPrefix) {
    throw new FieldError(
      NODES_FIELD,
      `CIDR prefix length must be less than or equal to ${maxPrefix}; got /${cidr.prefix}`,
    );
  }
  if (cidr.prefix < minPrefix) {
    throw new FieldError(
      NODES_FIELD,
      `CIDR prefix length must be bigger than or equal to ${minPrefix}; got /${cidr.prefix}`,
    );
  }
  return cidr;
}
