// Extracts from GitHub's published OpenAPI description the operations the GitHub forge adapter calls
// and the components they reference, into the committed fixture the GitHub test server validates
// against. The full description is 13 MB in a 385 MiB package, so it is never a dependency:
//
//   npm install --prefix /tmp/octo @octokit/openapi@23.0.2   (outside the checkout; pass its generated file)
//   npx tsx scripts/github-openapi-subset.ts [path/to/api.github.com.json]
//
// Re-run it when the adapter calls a new operation (add its operationId below).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OPERATIONS = [
  'apps/create-installation-access-token',
  'repos/get',
  'git/get-ref',
  'pulls/list',
  'pulls/create',
  'pulls/get',
  'pulls/update',
  'pulls/merge',
  'pulls/list-reviews',
  'issues/list-comments',
  'issues/create-comment',
  'issues/update-comment',
  'issues/add-labels',
  'repos/create-commit-status',
  'repos/get-combined-status-for-ref',
  'checks/list-for-ref',
  'repos/list-pull-requests-associated-with-commit',
  'git/list-matching-refs',
  'git/delete-ref',
  'issues/set-labels',
  'users/get-authenticated',
  'teams/get-membership-for-user-in-org',
  'repos/get-repo-rulesets',
  'repos/create-repo-ruleset',
  'repos/update-repo-ruleset',
  'repos/update-branch-protection',
];

const OUTPUT = fileURLToPath(new URL('../test/fixtures/github/openapi-subset.json', import.meta.url));
const PACKAGE = '@octokit/openapi';

/** Documentation-only keywords: dropped to keep the fixture small; validation does not read them. */
const DOC_KEYWORDS = new Set([
  'description',
  'summary',
  'example',
  'examples',
  'externalDocs',
  'x-github',
  'x-github-breaking-changes',
  'x-githubEnterpriseOnly',
  'title',
  'deprecated',
]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function strip(node: Json, keysAreNames = false): Json {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    // Under `properties` the keys are field names (a repository has a `description`), not keywords.
    if (!keysAreNames && DOC_KEYWORDS.has(key)) continue;
    out[key] = strip(value, key === 'properties' && !keysAreNames);
  }
  return out;
}

function refsIn(node: Json, found: Set<string>): void {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.add(value);
      else refsIn(value, found);
    }
  }
}

function subset(spec: { [key: string]: Json }, operationIds: readonly string[]): { [key: string]: Json } {
  const paths: { [path: string]: { [key: string]: Json } } = {};
  const wanted = new Set(operationIds);
  for (const [path, item] of Object.entries(spec.paths as { [path: string]: { [key: string]: Json } })) {
    for (const [method, operation] of Object.entries(item)) {
      const id = (operation as { operationId?: string } | null)?.operationId;
      if (id === undefined || !wanted.has(id)) continue;
      wanted.delete(id);
      paths[path] ??= item.parameters ? { parameters: strip(item.parameters) } : {};
      paths[path][method] = strip(operation);
    }
  }
  if (wanted.size > 0) throw new Error(`operations not in the description: ${[...wanted].join(', ')}`);

  // Copy referenced components until no new reference appears (schemas reference schemas).
  const allComponents = spec.components as { [kind: string]: { [name: string]: Json } };
  const components: { [kind: string]: { [name: string]: Json } } = {};
  const seen = new Set<string>();
  let pending = new Set<string>();
  refsIn(paths, pending);
  while (pending.size > 0) {
    const next = new Set<string>();
    for (const ref of pending) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      const [, , kind, name] = ref.split('/') as [string, string, string, string];
      const component = allComponents[kind]?.[name];
      if (component === undefined) throw new Error(`unresolved reference ${ref}`);
      (components[kind] ??= {})[name] = strip(component);
      refsIn(components[kind][name], next);
    }
    pending = next;
  }
  // Sorted, so that a re-run after adding one operation gives a readable diff.
  for (const [kind, named] of Object.entries(components))
    components[kind] = Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: spec.openapi ?? null,
    info: { title: 'GitHub REST API subset used by kimops', version: (spec.info as { version: string }).version },
    paths,
    components,
  };
}

function main(): void {
  const specPath =
    process.argv[2] ?? createRequire(import.meta.url).resolve(`${PACKAGE}/generated/api.github.com.json`);
  // The description sits in the package's generated/ folder; its package.json names the version.
  const pkgVersion = (
    JSON.parse(readFileSync(join(dirname(specPath), '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { [key: string]: Json };
  const out = subset(spec, OPERATIONS);
  const source = `${PACKAGE}@${pkgVersion} generated/api.github.com.json, by scripts/github-openapi-subset.ts`;
  writeFileSync(OUTPUT, `${JSON.stringify({ 'x-kimops-source': source, ...out }, null, 1)}\n`);
  console.log(`wrote ${OUTPUT} (${Object.keys(out.paths as object).length} paths) from ${source}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
