/** The service client: `createServiceClient`, `serviceClientFromEnv`, `ServiceError`, `verifyWebhook`. */
export { ConfigurationError } from './configuration-error.ts';
export { ServiceError } from './errors.ts';
export {
  type AddressClass,
  DownloadRefused,
  type LinkPolicy,
  type RefusalReason,
  redactLink,
} from './link-policy.ts';
export type { ListOptions } from './pagination.ts';
export { retryRead } from './retry-read.ts';
export { checkServiceUrl, linkPolicyFor } from './service-address.ts';
export { createServiceClient, serviceClientFromEnv } from './service-client.ts';
export type * from './types.ts';
export { type VerifiedWebhookEvent, verifyWebhook } from './webhooks.ts';
