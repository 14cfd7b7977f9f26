import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerBuildInfo } from './build-info.js';

describe('registerBuildInfo', () => {
  it('serves 1 labelled with the version and the Node', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, '1.2.3', 'v24.0.0');
    expect(await registry.metrics()).toContain('kimops_build_info{version="1.2.3",node="v24.0.0"} 1');
  });
});
