// Kubernetes' rules for object names (DNS-1123), used wherever a name reaches Gardener or a path.

/** A DNS-1123 label: Shoot names, and what keeps a name inside `shoots/<name>/`. */
export const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** A DNS-1123 subdomain: the names of most Kubernetes objects (bindings, ConfigMaps). */
export const DNS_1123_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
