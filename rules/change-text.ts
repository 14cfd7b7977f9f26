// How a value and a field change read in a sentence, a PR body line or a rollout cluster.
import type { FieldChange } from './semantic-diff.js';

/** Longest value shown inline; longer ones are shortened (the YAML diff has them in full). */
const MAX_VALUE_CHARS = 80;

/** Strings bare, everything else as JSON, long values shortened. */
export function show(value: unknown): string {
  if (value === undefined) return '(unset)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 3)}...` : text;
}

/** `spec.kubernetes.version 1.32.5 → 1.33.3`, `spec.extensions[acl] added: {…}`, `… removed (was 3)`. */
export function describeChange(change: FieldChange): string {
  switch (change.kind) {
    case 'changed':
      return `${change.path} ${show(change.before)} → ${show(change.after)}`;
    case 'added':
      return `${change.path} added: ${show(change.after)}`;
    case 'removed':
      return `${change.path} removed (was ${show(change.before)})`;
  }
}

/** 1214 → "1,214", the same on every machine whatever its locale. */
export function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
