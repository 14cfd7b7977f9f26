// The dev landscape is KIM's dev configuration in kimops's form: every KEB example Runtime renders
// to the same Shoot through `--landscape dev` as through KIM's own converter_config.json with the
// same tenant and maintenance-window maps. This keeps the two config paths from drifting apart.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVERSION_FLAGS } from '../../model/converter-config.js';
import { decodeKimConfig, settingsFromKim } from '../../model/kim-config.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Runtime } from '../../model/runtime.js';
import { convertRuntime } from './convert-runtime.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const dev = parseLandscape(read('landscapes/dev/landscape.yaml'), 'landscapes/dev/landscape.yaml', 'dev');
const ours = conversionSettingsOf(dev);
const kimFile = decodeKimConfig(read('landscapes/kim/dev-converter-config.json'), 'dev-converter-config.json').config;
// KIM's public dev config predates GDCH; the landscape's (invented) parent network is the one addition.
kimFile.converter.provider = { ...kimFile.converter.provider, gdch: ours.config.provider?.gdch };
const kim = settingsFromKim(kimFile, DEFAULT_CONVERSION_FLAGS, dev.auditLog.tenants, dev.maintenanceWindows ?? {});

const examples = readdirSync(new URL('../../examples/runtimes/keb/', import.meta.url))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('landscape dev ≡ KIM dev config', () => {
  it.each(examples)('%s renders identically', (file) => {
    const runtime = parse(read(`examples/runtimes/keb/${file}`)) as Runtime;
    const viaLandscape = convertRuntime({ runtime, settings: ours });
    const viaKim = convertRuntime({ runtime, settings: kim });
    expect(viaLandscape.ok).toBe(true);
    expect(viaLandscape).toEqual(viaKim);
  });
});
