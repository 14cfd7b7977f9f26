import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { fillPlaceholders, readTemplate } from './template.js';

const dir = useTempDir('template');

describe('readTemplate', () => {
  it('reads every file under the folder, dotfiles and empty files included, by sorted / path', async () => {
    await dir.write('b.md', 'b\n');
    await dir.write('.github/workflows/x.yml', 'on: push\n');
    await dir.write('shoots/.gitkeep', '');
    expect([...(await readTemplate(dir.path))]).toEqual([
      ['.github/workflows/x.yml', 'on: push\n'],
      ['b.md', 'b\n'],
      ['shoots/.gitkeep', ''],
    ]);
  });
});

describe('fillPlaceholders', () => {
  it('replaces the given names only, every occurrence', () => {
    expect(
      fillPlaceholders('{{landscape}}/{{project}} {{landscape}} {{other}} ${{ github.base_ref }}', {
        landscape: 'dev',
        project: 'kyma-dev',
      }),
    ).toBe('dev/kyma-dev dev {{other}} ${{ github.base_ref }}');
  });
});
