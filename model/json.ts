// Small facts about JSON values that several readers of untrusted input need.

/** A JSON object: not null, not a list. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value itself when it is a JSON object, else a fresh empty one: for reading optional nested config. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}
