// The provider registry: Runtime `provider.type` → the module owning its configs.
import { FieldError } from '../../../model/errors.js';
import { alicloud } from './alicloud.js';
import { aws } from './aws.js';
import { azure } from './azure.js';
import { gcp } from './gcp.js';
import { gdch } from './gdch.js';
import { openstack } from './openstack.js';
import type { ProviderModule } from './provider.js';

const PROVIDERS: Record<string, ProviderModule> = { aws, azure, gcp, openstack, alicloud, gdch };

export function providerModule(type: string): ProviderModule {
  const module = PROVIDERS[type];
  if (!module) {
    throw new FieldError('spec.shoot.provider.type', `provider not supported: "${type}"; use one of ${Object.keys(PROVIDERS).join(', ')}`);
  }
  return module;
}
