// Reading Kubernetes manifests from disk or stdin: a file, a directory walked in sorted order, or `-`.
// Each object is checked for its kind; a bad document or file is reported and never hides the good ones.
// Nothing under a directory is passed over without a word unless it is hidden (a dot-name) or plainly no
// manifest: the generator deletes a Shoot whose Runtime is absent only when the read reported no problem.
import { constants } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { parseYamlDocuments } from '../../model/yaml-input.js';
import { isInside } from './inside.js';
import { fileProblemReason, isDirectory, MAX_TEXT_FILE_BYTES, readTextFile } from './read-text.js';
import { isJsonObject } from '../../model/json.js';

export const STDIN = '-';
const STDIN_SOURCE = '<stdin>';
/** Compared in lower case: `.YAML` and `.Yaml` are YAML too. */
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
/**
 * Live Shoots are often read from a landscape repo, where each Shoot's companion ConfigMaps sit beside it and the
 * objects of its cluster in its skr/ folder.
 */
export const SHOOT_KIND: ManifestKind = {
  apiVersion: SHOOT_API_VERSION,
  kind: 'Shoot',
  skipped: [
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'v1', kind: 'Namespace' },
    { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  ],
};

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
  const found = pathOrDash === STDIN ? { files: [], problems: [] } : await manifestFiles(pathOrDash, expected);
  errors.push(...found.problems);
  const inputs: Input[] =
    pathOrDash === STDIN
      ? [{ source: STDIN_SOURCE, json: false, read: stdinText(await readStdin()) }]
      : found.files.map((file) => ({
          source: file,
          json: extname(file).toLowerCase() === '.json',
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
  if (
    isJsonObject(value) &&
    (value['kind'] === 'List' || value['kind'] === `${expected.kind}List`) &&
    Array.isArray(value['items'])
  ) {
    return value['items'].map((item: unknown, i) => ({ label: `items[${i}]`, value: item }));
  }
  return [{ label: '', value }];
}

function kindProblem(value: unknown, expected: ManifestKind): string | undefined {
  const wanted = `${expected.kind} (${expected.apiVersion})`;
  if (!isJsonObject(value))
    return `not a Kubernetes object but ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`} — expected a ${wanted}`;
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
  return (
    isJsonObject(value) &&
    (expected.skipped ?? []).some((k) => k.kind === value['kind'] && k.apiVersion === value['apiVersion'])
  );
}

function describeSource(file: string, labels: string[]): string {
  const parts = labels.filter(Boolean);
  return parts.length > 0 ? `${file} (${parts.join(', ')})` : file;
}

/** The manifest files at `path` (the file itself, or every .yaml/.yml/.json below a directory, sorted), and what could not be taken. */
async function manifestFiles(
  path: string,
  expected: ManifestKind,
): Promise<{ files: string[]; problems: ReadProblem[] }> {
  const directory = await isDirectory(
    path,
    (reason) =>
      new ConfigError(path, '', `${reason} — pass a ${expected.kind} file, a directory of them, or - for stdin`),
  );
  if (!directory) return { files: [path], problems: [] };
  const root = await realpath(path);
  const walk: Walk = { root, files: [], problems: [], seen: new Set([root]) };
  await walkFolder(path, root, walk);
  return walk;
}

interface Walk {
  /** The real path of the folder read: links are followed only to folders inside it. */
  root: string;
  files: string[];
  problems: ReadProblem[];
  /** Real paths of the folders and files taken: each is read once, however many links lead to it, and a link back up ends there. */
  seen: Set<string>;
}

const isManifestName = (name: string) => MANIFEST_EXTENSIONS.has(extname(name).toLowerCase());
const problem = (source: string, message: string): ReadProblem => ({ source, message: `${source}: ${message}` });

/** Depth-first in code-unit order, so the same tree always gives the same order; dot-entries are skipped. */
async function walkFolder(directory: string, real: string, walk: Walk): Promise<void> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    walk.problems.push(
      problem(directory, `${reasonOf(error)} — make the folder readable: what it holds is unknown until then`),
    );
    return;
  }
  entries = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    const realPath = join(real, entry.name);
    if (entry.isSymbolicLink()) await followLink(path, entry.name, walk);
    else if (walk.seen.has(realPath)) continue;
    else if (entry.isDirectory()) {
      walk.seen.add(realPath);
      await walkFolder(path, realPath, walk);
    } else await takeFile(path, realPath, entry.name, entry.isFile(), walk);
  }
}

/** A link to a folder inside the tree is walked, one outside it refused; a link to a file counts as that file. */
async function followLink(path: string, name: string, walk: Walk): Promise<void> {
  let target: string;
  let isFolder: boolean;
  let isFile: boolean;
  try {
    target = await realpath(path);
    const stats = await stat(target);
    [isFolder, isFile] = [stats.isDirectory(), stats.isFile()];
  } catch (error) {
    // What it led to is unknown: it may have been a folder of Runtimes.
    walk.problems.push(
      problem(path, `a symbolic link that cannot be followed (${reasonOf(error)}) — fix its target or remove it`),
    );
    return;
  }
  if (walk.seen.has(target)) return;
  if (!isFolder) return takeFile(path, target, name, isFile, walk);
  if (!isInside(walk.root, target)) {
    walk.problems.push(
      problem(
        path,
        `a symbolic link to the folder ${target}, outside ${walk.root}: links are followed only within the folder read — move those manifests under it, or pass ${target} itself`,
      ),
    );
    return;
  }
  walk.seen.add(target);
  await walkFolder(path, target, walk);
}

async function takeFile(path: string, real: string, name: string, regular: boolean, walk: Walk): Promise<void> {
  walk.seen.add(real);
  if (!isManifestName(name)) {
    if (regular && (await looksLikeManifest(path))) {
      walk.problems.push(
        problem(
          path,
          `looks like a Kubernetes manifest (apiVersion and kind) but is not read: only .yaml, .yml and .json files are — rename it, or move it out of ${walk.root}`,
        ),
      );
    }
    return;
  }
  // Reading a FIFO would wait for a writer, a device may never end: neither holds manifests.
  if (!regular)
    walk.problems.push(
      problem(path, 'is not a regular file (a FIFO, socket or device) — replace it with the file itself'),
    );
  else walk.files.push(path);
}

/** The first bytes of a file that is not read by its name: enough to see a manifest's leading keys. */
const SNIFF_BYTES = 4096;
/** `apiVersion:` and `kind:` as YAML keys at a line's start, or as JSON keys. */
const MANIFEST_KEYS = [/(^|[{,]\s*)["']?apiVersion["']?\s*:/m, /(^|[{,]\s*)["']?kind["']?\s*:/m];

/**
 * Whether a file with another extension (`aws.yaml.bak`, `aws.txt`) holds a manifest: skipping it silently could
 * make a Runtime look deleted. A file that cannot be opened counts as none: its name says it is no manifest.
 */
async function looksLikeManifest(path: string): Promise<boolean> {
  let handle;
  try {
    // Non-blocking: a file swapped for a FIFO since the directory was read must not hang the walk.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    const head = buffer.toString('utf8', 0, bytesRead);
    return MANIFEST_KEYS.every((key) => key.test(head));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

function reasonOf(error: unknown): string {
  return fileProblemReason(error) ?? (error as NodeJS.ErrnoException).code ?? String(error);
}

/** All of stdin as text; refuses a terminal, where reading would wait for input nobody intends to type. */
export async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new ConfigError(
      STDIN_SOURCE,
      '',
      'stdin is a terminal — pipe manifests in, e.g. kubectl get runtimes -A -o yaml | kimops render … --runtime -',
    );
  }
  return readBounded(process.stdin);
}

/** A stream's text, refused past the limit of one file (`cat /dev/zero | kimops …` must not exhaust memory). */
export async function readBounded(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_TEXT_FILE_BYTES) {
      throw new ConfigError(
        STDIN_SOURCE,
        '',
        `is over kimops's limit of ${MAX_TEXT_FILE_BYTES / 2 ** 20} MiB for one input — pass a folder of files instead`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
