// `kimops render`, run: the Runtimes, the landscape or KIM's config and the live Shoots read (adapters/files/),
// rendered (generator/render-runtimes.ts), written or printed. Its options: commands/render.ts.
import { configure } from 'safe-stable-stringify';
import { readKimSettings } from '../adapters/files/kim-settings.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes, readShoots, STDIN } from '../adapters/files/manifests.js';
import { writeFiles } from '../adapters/files/write-files.js';
import { toYamlStream } from '../rules/canonical-yaml.js';
import { filesOf, isRegistryCachePath, isSkrPath } from '../rules/landscape-layout.js';
import { renderRuntimes, type RenderResult } from '../generator/render-runtimes.js';
import { parseAssignments } from '../model/assignments.js';
import { ConfigError } from '../model/errors.js';
import { printable, printableLines } from '../model/printable.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import type { Shoot } from '../model/shoot.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { kimInputsOf, type KimConfigFlags } from './options.js';

export interface RenderOptions extends KimConfigFlags {
  landscape?: string;
  runtime: string;
  liveShoot?: string;
  out?: string;
  output: 'yaml' | 'json';
  registryCacheSecret?: string[];
}

/** What the options cannot mean together (a usage error), if anything. */
export function optionsProblem(options: RenderOptions): string | undefined {
  if (!options.landscape && !options.kimConfig) return 'pass --landscape <name|dir> or --kim-config <file>';
  if (!options.kimConfig && (options.kimFlag || options.kimConfigmap || options.kimFile))
    return '--kim-flag, --kim-configmap and --kim-file only apply with --kim-config';
  if (options.runtime === STDIN && options.liveShoot === STDIN)
    return 'only one of --runtime and --live-shoot can read stdin (-)';
  return undefined;
}

export async function render(options: RenderOptions, io: CliIo): Promise<number> {
  const settings = await loadSettings(options, io);
  const liveShoots = options.liveShoot ? await loadLiveShoots(options.liveShoot, io) : new Map<string, Shoot>();
  const { runtimes, errors: readErrors } = await readRuntimes(options.runtime, () => io.readStdin());
  const registryCacheSecrets = Object.fromEntries(
    parseAssignments(options.registryCacheSecret ?? [], '--registry-cache-secret', '1b7e…-uid=reg-cache-1b7e…'),
  );
  const result = renderRuntimes(runtimes, settings, liveShoots, registryCacheSecrets);

  if (options.out) {
    const { written, unchanged } = await writeFiles(options.out, filesOf(result.rendered.flatMap((r) => r.manifests)));
    io.stderr(`wrote ${written.length} files under ${printable(options.out)} (${unchanged.length} unchanged)\n`);
  }
  if (options.output === 'json') io.stdout(`${jsonReport(result, readErrors)}\n`);
  // The stream is for the Garden (kubectl apply -f -): the objects of the clusters (skr/) are not, nor the
  // registry caches' data-less stubs (applied, they would be empty immutable Secrets; the applier copies the data).
  else if (!options.out)
    io.stdout(
      toYamlStream(
        result.rendered.flatMap((r) =>
          r.manifests.filter((m) => !isSkrPath(m.path) && !isRegistryCachePath(m.path)).map((m) => m.object),
        ),
      ),
    );

  if (result.unusedLiveShoots.length > 0) {
    io.stderr(
      `note: live Shoots matching no Runtime were not used: ${result.unusedLiveShoots.map(printable).join(', ')}\n`,
    );
  }
  if (runtimes.length === 0 && readErrors.length === 0)
    io.stderr(`note: no Runtime found in ${printable(options.runtime)}\n`);
  const failures = [...readErrors, ...result.failures];
  // Escaped again (it changes nothing already escaped): a read problem's message may quote a file name as is.
  for (const failure of failures) io.stderr(`${printableLines(failure.message)}\n`);
  for (const bug of result.bugs)
    reportFailure(new Error(`rendering runtime ${bug.runtime} (${bug.source}) failed`, { cause: bug.error }), io);
  if (result.bugs.length > 0) return EXIT.internal;
  return failures.length > 0 ? EXIT.conversionFailed : EXIT.ok;
}

async function loadSettings(options: RenderOptions, io: CliIo): Promise<ConversionSettings> {
  if (options.landscape) return conversionSettingsOf(await readLandscape(options.landscape));
  const { settings, warnings } = await readKimSettings(kimInputsOf({ ...options, kimConfig: options.kimConfig ?? '' }));
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  return settings;
}

/** Live Shoots by name. Any unreadable one stops the run: without it a Runtime would render in create mode. */
async function loadLiveShoots(path: string, io: CliIo): Promise<Map<string, Shoot>> {
  const { shoots, errors } = await readShoots(path, () => io.readStdin());
  for (const error of errors) io.stderr(`${printableLines(error.message)}\n`);
  if (errors.length > 0) {
    throw new ConfigError(
      '--live-shoot',
      '',
      `${errors.length} live Shoot document(s) above cannot be read; fix or remove them, or their Runtimes would render as new Shoots`,
    );
  }
  const byName = new Map<string, Shoot>();
  const sourceOf = new Map<string, string>();
  for (const { source, shoot } of shoots) {
    const earlier = sourceOf.get(shoot.metadata.name);
    if (earlier)
      throw new ConfigError(
        '--live-shoot',
        '',
        `Shoot ${shoot.metadata.name} is given twice (${earlier}, ${source}); pass each live Shoot once`,
      );
    byName.set(shoot.metadata.name, shoot);
    sourceOf.set(shoot.metadata.name, source);
  }
  return byName;
}

const stableJson = configure({ deterministic: true });

function jsonReport(result: RenderResult, readErrors: readonly { source: string; message: string }[]): string {
  const shoots = result.rendered.map((r) => {
    const garden = r.manifests.filter((m) => !isSkrPath(m.path) && !isRegistryCachePath(m.path)).map((m) => m.object);
    return {
      name: r.shootName,
      runtime: r.runtime,
      source: r.source,
      mode: r.mode,
      shoot: garden.at(-1),
      companions: garden.slice(0, -1),
      skr: r.manifests.filter((m) => isSkrPath(m.path)).map((m) => m.object),
      registryCache: r.manifests.filter((m) => isRegistryCachePath(m.path)).map((m) => m.object),
      files: r.manifests.map((m) => m.path),
    };
  });
  return stableJson({ shoots, errors: [...readErrors, ...result.failures] }, null, 2) ?? '';
}
