// The provider registry: Runtime `provider.type` → the module owning its configs.
import { FieldError } from '../../../model/errors.js';
import { alicloud } from './alicloud.js';
import { aws } from './aws.js';
import { azure } from './azure.js';
import { gcp } from './gcp.js';
import { gdch } from './gdch.js';
import { openstack } from './openstack.js';
import type { ProviderModule } from './provider.js';
import type { ProviderType } from '../../../model/runtime.js';

const PROVIDERS: Record<ProviderType, ProviderModule> = { aws, azure, gcp, openstack, alicloud, gdch };

export function providerModule(type: string): ProviderModule {
  // hasOwn: a Runtime's provider type must never resolve to Object.prototype's members.
  const module = Object.hasOwn(PROVIDERS, type) ? PROVIDERS[type as ProviderType] : undefined;
  if (!module) {
    throw new FieldError(
      'spec.shoot.provider.type',
      `provider not supported: "${type}"; use one of ${Object.keys(PROVIDERS).join(', ')}`,
    );
  }
  return module;
}
