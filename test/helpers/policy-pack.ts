// Test support: the default policy pack, the landscape facts its examples run with, and the examples
// themselves (policies/default/examples/<policy>/: pass-* / fail-*, a `*.old.yaml` beside one makes it
// an UPDATE, `*.deleted.yaml` a DELETE) — read once for the pack's unit test and the differential test.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parsePolicyFiles, type Operation } from '../../generator/validate/policy-file.js';

const PACK = new URL('../../policies/default/', import.meta.url);
export const EXAMPLES = new URL('examples/', PACK);

const read = (url: URL) => readFileSync(url, 'utf8');

export const packPolicies = parsePolicyFiles(
  readdirSync(PACK)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: `policies/default/${f}`, text: read(new URL(f, PACK)) })),
);

/** examples/params.yaml: the facts every example runs with. */
export const packParams = (parse(read(new URL('params.yaml', EXAMPLES))) as { data: Record<string, string> }).data;

export interface PackExample {
  policy: string;
  file: string;
  expected: 'passed' | 'failed';
  operation: Extract<Operation, 'CREATE' | 'UPDATE' | 'DELETE'>;
  /** After the change; null on DELETE. */
  object: unknown;
  /** Before the change (UPDATE, DELETE); null on CREATE. */
  oldObject: unknown;
}

export function packExamples(): PackExample[] {
  const examples: PackExample[] = [];
  for (const policy of readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const dir = new URL(`${policy}/`, EXAMPLES);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml') && !f.endsWith('.old.yaml'))
      .sort()) {
      const expected = file.startsWith('pass-') ? 'passed' : file.startsWith('fail-') ? 'failed' : undefined;
      if (!expected) throw new Error(`policies/default/examples/${policy}/${file}: name it pass-* or fail-*`);
      const shoot = parse(read(new URL(file, dir))) as unknown;
      const oldFile = new URL(file.replace(/\.yaml$/, '.old.yaml'), dir);
      if (file.endsWith('.deleted.yaml'))
        examples.push({ policy, file, expected, operation: 'DELETE', object: null, oldObject: shoot });
      else if (existsSync(oldFile))
        examples.push({ policy, file, expected, operation: 'UPDATE', object: shoot, oldObject: parse(read(oldFile)) });
      else examples.push({ policy, file, expected, operation: 'CREATE', object: shoot, oldObject: null });
    }
  }
  return examples;
}
