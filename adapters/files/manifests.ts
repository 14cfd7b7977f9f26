// Reading Kubernetes manifests from disk or stdin: a file, a directory walked in sorted order, or `-`.
// Each object is checked for its kind; a bad document or file is reported and never hides the good ones.
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { parseYamlDocuments } from '../../model/yaml-input.js';
import { isDirectory, readTextFile } from './read-text.js';
import { isJsonObject } from '../../model/json.js';

export const STDIN = '-';
const STDIN_SOURCE = '<stdin>';
const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export type ReadStdin = () => Promise<string>;

/** Where one object came from: `file`, `file (document 2)`, `file (document 2, items[0])`. */
export interface Sourced<T> {
  source: string;
  object: T;
}

/** A document or file that could not be read as the expected kind. */
export interface ReadProblem {
  source: string;
  message: string;
}

export interface ManifestKind {
  apiVersion: string;
  kind: string;
  /** Kinds that may sit beside the expected one and are passed over, not reported. */
  skipped?: readonly { apiVersion: string; kind: string }[];
}

export const RUNTIME_KIND: ManifestKind = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' };
/** Live Shoots are often read from a landscape repo, where each Shoot's companion ConfigMaps sit beside it. */
export const SHOOT_KIND: ManifestKind = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', skipped: [{ apiVersion: 'v1', kind: 'ConfigMap' }] };

export async function readRuntimes(
  pathOrDash: string,
  readStdin: ReadStdin = readProcessStdin,
): Promise<{ runtimes: { source: string; runtime: Runtime }[]; errors: ReadProblem[] }> {
  const { objects, errors } = await readManifests(pathOrDash, RUNTIME_KIND, readStdin);
  return { runtimes: objects.map(({ source, object }) => ({ source, runtime: object as unknown as Runtime })), errors };
}

export async function readShoots(
  pathOrDash: string,
  readStdin: ReadStdin = readProcessStdin,
): Promise<{ shoots: { source: string; shoot: Shoot }[]; errors: ReadProblem[] }> {
  const { objects, errors } = await readManifests(pathOrDash, SHOOT_KIND, readStdin);
  return { shoots: objects.map(({ source, object }) => ({ source, shoot: object as unknown as Shoot })), errors };
}

/**
 * Every object of the expected kind under `pathOrDash`. A `List` (what `kubectl get -o yaml` prints)
 * counts as its items. Throws ConfigError only when the path itself cannot be read.
 */
export async function readManifests(
  pathOrDash: string,
  expected: ManifestKind,
  readStdin: ReadStdin = readProcessStdin,
): Promise<{ objects: Sourced<Record<string, unknown>>[]; errors: ReadProblem[] }> {
  const objects: Sourced<Record<string, unknown>>[] = [];
  const errors: ReadProblem[] = [];
  // Stdin is read up front: a problem there (a terminal, not a pipe) is a usage error and propagates,
  // while a file that cannot be read is one bad input among others.
  const inputs: Input[] = pathOrDash === STDIN
    ? [{ source: STDIN_SOURCE, json: false, read: stdinText(await readStdin()) }]
    : (await manifestFiles(pathOrDash, expected)).map((file) => ({
        source: file,
        json: extname(file) === '.json',
        read: () => readTextFile(file, (reason) => new ConfigError(file, '', reason)),
      }));
  for (const input of inputs) {
    let documents: { label: string; value: unknown }[];
    try {
      documents = documentsOf(await input.read(), input.source, input.json);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push({ source: input.source, message: error.message });
      continue;
    }
    for (const { label, value } of documents) {
      if (value instanceof ConfigError) {
        errors.push({ source: input.source, message: value.message });
        continue;
      }
      for (const item of itemsOf(value, expected)) {
        const source = describeSource(input.source, [label, item.label]);
        if (isSkipped(item.value, expected)) continue;
        const problem = kindProblem(item.value, expected);
        if (problem) errors.push({ source, message: `${source}: ${problem}` });
        else objects.push({ source, object: item.value as Record<string, unknown> });
      }
    }
  }
  return { objects, errors };
}

interface Input {
  source: string;
  json: boolean;
  read: () => Promise<string>;
}

const stdinText = (text: string) => async () => text;

/** The documents of one file, labelled `document N` when there is more than one. */
function documentsOf(text: string, source: string, json: boolean): { label: string; value: unknown }[] {
  if (json) {
    try {
      return [{ label: '', value: JSON.parse(text) as unknown }];
    } catch (error) {
      throw new ConfigError(source, '', `not valid JSON: ${(error as Error).message}`);
    }
  }
  const documents = parseYamlDocuments(text, source);
  return documents.map((document) => ({
    label: documents.length > 1 ? `document ${document.index}` : '',
    value: document.error ?? document.value,
  }));
}

/** A `List`/`<Kind>List` stands for its items; anything else for itself. */
function itemsOf(value: unknown, expected: ManifestKind): { label: string; value: unknown }[] {
  if (isJsonObject(value) && (value['kind'] === 'List' || value['kind'] === `${expected.kind}List`) && Array.isArray(value['items'])) {
    return value['items'].map((item: unknown, i) => ({ label: `items[${i}]`, value: item }));
  }
  return [{ label: '', value }];
}

function kindProblem(value: unknown, expected: ManifestKind): string | undefined {
  const wanted = `${expected.kind} (${expected.apiVersion})`;
  if (!isJsonObject(value)) return `not a Kubernetes object but ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`} — expected a ${wanted}`;
  const { apiVersion, kind, metadata } = value;
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') {
    return `has no kind and apiVersion, so it is no Kubernetes object — expected a ${wanted}`;
  }
  if (kind !== expected.kind || apiVersion !== expected.apiVersion) {
    return `is a ${String(kind)} (${String(apiVersion)}), not a ${wanted} — pass only ${expected.kind} manifests here`;
  }
  const name = isJsonObject(metadata) ? metadata['name'] : undefined;
  if (typeof name !== 'string' || name === '') return 'metadata.name: missing — every manifest needs a name';
  return undefined;
}

function isSkipped(value: unknown, expected: ManifestKind): boolean {
  return isJsonObject(value) && (expected.skipped ?? []).some((k) => k.kind === value['kind'] && k.apiVersion === value['apiVersion']);
}

function describeSource(file: string, labels: string[]): string {
  const parts = labels.filter(Boolean);
  return parts.length > 0 ? `${file} (${parts.join(', ')})` : file;
}

/** The manifest files at `path`: the file itself, or every .yaml/.yml/.json below a directory, sorted. */
async function manifestFiles(path: string, expected: ManifestKind): Promise<string[]> {
  const directory = await isDirectory(path, (reason) => new ConfigError(path, '', `${reason} — pass a ${expected.kind} file, a directory of them, or - for stdin`));
  return directory ? walk(path) : [path];
}

/** Depth-first in code-unit order, so the same tree always gives the same order; dot-files are skipped. */
async function walk(directory: string): Promise<string[]> {
  const entries = (await readdir(directory, { withFileTypes: true }))
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    // Symlinks count as files; one that leads nowhere is reported when it is read.
    else if (MANIFEST_EXTENSIONS.has(extname(entry.name))) files.push(path);
  }
  return files;
}

/** All of stdin as text; refuses a terminal, where reading would wait for input nobody intends to type. */
export async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new ConfigError(STDIN_SOURCE, '', 'stdin is a terminal — pipe manifests in, e.g. kubectl get runtimes -A -o yaml | kimops render … --runtime -');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
