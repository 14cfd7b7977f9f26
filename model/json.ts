// Small facts about JSON values that several readers of untrusted input need.

/** A JSON object: not null, not a list. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value itself when it is a JSON object, else a fresh empty one: for reading optional nested config. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}

/** What a value read as a manifest is, for errors: `v1 ConfigMap`, `<no apiVersion> Shoot`, or `no Kubernetes object but a list`. */
export function describeKind(value: unknown): string {
  if (!isJsonObject(value))
    return `no Kubernetes object but ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`}`;
  return `${typeof value.apiVersion === 'string' ? value.apiVersion : '<no apiVersion>'} ${typeof value.kind === 'string' ? value.kind : '<no kind>'}`;
}
