import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import { leaseName } from './leader-option.js';

describe('leaseName', () => {
  it('names one Lease per loop and landscape', () => {
    expect(leaseName('generate', 'dev')).toBe('kimops-generate-dev');
    expect(leaseName('backfill', 'prod-eu')).toBe('kimops-backfill-prod-eu');
  });

  it('refuses a landscape name Kubernetes would refuse in a Lease name, with the fix', () => {
    expect(() => leaseName('apply', 'My_Landscape')).toThrow(ConfigError);
    expect(() => leaseName('apply', 'My_Landscape')).toThrow(/use lower-case letters, digits and dashes/);
  });
});
