// Properties of the converter over generated Runtimes: deterministic output, and malformed
// input only ever ends in a ConversionError value — never an exception.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversionError } from '../../model/errors.js';
import type { Runtime } from '../../model/runtime.js';
import { runtime, SETTINGS } from '../../test/helpers/runtime-arbitrary.js';
import { convertRuntime } from './convert-runtime.js';

/** Replaces or deletes one value somewhere in the object. */
function mutate(value: unknown, path: string[], replacement: unknown, remove: boolean): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return remove ? undefined : replacement;
  const copy: Record<string, unknown> = Array.isArray(value)
    ? ([...value] as never)
    : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return replacement;
  const key = keys[Number(path[0]) % keys.length] as string;
  if (path.length === 1 && remove) return Object.fromEntries(Object.entries(copy).filter(([k]) => k !== key));
  copy[key] = mutate(copy[key], path.slice(1), replacement, remove);
  return copy;
}

describe('convertRuntime properties', () => {
  it('is deterministic: the same Runtime gives the same Shoot, byte for byte', () => {
    fc.assert(
      fc.property(runtime, (rt) => {
        const first = convertRuntime({ runtime: rt, settings: SETTINGS });
        const second = convertRuntime({ runtime: structuredClone(rt), settings: SETTINGS });
        expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      }),
      { numRuns: 300 },
    );
  });

  it('converts every generated well-formed Runtime', () => {
    fc.assert(
      fc.property(runtime, (rt) => {
        const result = convertRuntime({ runtime: rt, settings: SETTINGS });
        expect(result.ok ? 'ok' : result.error.message).toBe('ok');
      }),
      { numRuns: 300 },
    );
  });

  it('turns a converted Shoot back into itself when used as the live Shoot (update mode is idempotent)', () => {
    fc.assert(
      fc.property(runtime, (rt) => {
        const created = convertRuntime({ runtime: rt, settings: SETTINGS });
        if (!created.ok) throw created.error;
        const updated = convertRuntime({ runtime: rt, settings: SETTINGS, live: created.shoot });
        if (!updated.ok) throw updated.error;
        expect(updated.shoot).toEqual(created.shoot);
      }),
      { numRuns: 200 },
    );
  });

  it('answers malformed Runtimes with a ConversionError, never an exception', () => {
    const junk = fc.oneof(
      fc.constant(null),
      fc.string(),
      // Names that a plain-object lookup would find on Object.prototype.
      fc.constantFrom('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'ibm', 'AWS'),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(
        runtime,
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        junk,
        fc.boolean(),
        (rt, path, replacement, remove) => {
          const broken = mutate(rt, path.map(String), replacement, remove);
          let result: ReturnType<typeof convertRuntime> | undefined;
          expect(() => (result = convertRuntime({ runtime: broken as Runtime, settings: SETTINGS }))).not.toThrow();
          if (result && !result.ok) {
            expect(result.error).toBeInstanceOf(ConversionError);
            expect(result.error.message).toMatch(/^runtime \S+: \S/);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers non-objects with a ConversionError', () => {
    for (const value of [null, 42, 'runtime', [], { spec: 1 }]) {
      const result = convertRuntime({ runtime: value as unknown as Runtime, settings: SETTINGS });
      expect(result.ok).toBe(false);
    }
  });
});
