import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, packagePath } from './package-root.js';

describe('packagePath', () => {
  it('finds kimops’s own package and its shipped folders', () => {
    expect(JSON.parse(readFileSync(packagePath('package.json'), 'utf8'))).toMatchObject({ name: 'kimops' });
    for (const folder of ['landscapes', 'policies', 'crds', 'repo-template', 'examples'])
      expect(existsSync(packagePath(folder)), folder).toBe(true);
    expect(packagePath('model', 'schemas', 'shoot-openapi-v1beta1.json')).toBe(
      `${PACKAGE_ROOT}/model/schemas/shoot-openapi-v1beta1.json`,
    );
  });
});
