import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { LANDSCAPE_FILE, readLandscape, SHIPPED_LANDSCAPES } from './landscape.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';

const dir = useTempDir('landscape');
const devText = () => readFile(join(SHIPPED_LANDSCAPES, 'dev', LANDSCAPE_FILE), 'utf8');

describe('readLandscape', () => {
  it('finds shipped landscapes next to the package, not the working directory', async () => {
    expect(SHIPPED_LANDSCAPES).toBe(fileURLToPath(new URL('../../landscapes/', import.meta.url)));
    const landscape = await readLandscape('dev');
    expect(landscape.name).toBe('dev');
  });

  it('reads a folder holding landscape.yaml, and the file itself', async () => {
    const file = await dir.write(`copy/${LANDSCAPE_FILE}`, await devText());
    expect((await readLandscape(join(dir.path, 'copy'))).name).toBe('dev');
    expect((await readLandscape(file)).name).toBe('dev');
  });

  it('names the known landscapes when a name is unknown', async () => {
    await expect(readLandscape('nowhere')).rejects.toThrow(ConfigError);
    await expect(readLandscape('nowhere')).rejects.toThrow(
      /^--landscape: no landscape "nowhere" ships with kimops \(known: [a-z, -]*\bdev\b[a-z, -]*\); for a folder in the current directory write \.\/nowhere$/,
    );
  });

  it('says what to pass when a path does not exist or holds no landscape.yaml', async () => {
    await expect(readLandscape(join(dir.path, 'missing'))).rejects.toThrow(
      `${join(dir.path, 'missing')} not found — pass a landscape name (dev)`,
    );
    await expect(readLandscape(dir.path)).rejects.toThrow(`--landscape: ${join(dir.path, LANDSCAPE_FILE)} not found`);
  });

  it('passes parse errors through with the file name', async () => {
    const file = await dir.write(LANDSCAPE_FILE, 'name: x\nname: y\n');
    await expect(readLandscape(file)).rejects.toThrow(file);
  });
});
