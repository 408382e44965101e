/** The service client: `createServiceClient`, `serviceClientFromEnv`, `ServiceError`, `verifyWebhook`. */
export { ServiceError } from './errors.ts';
export type { ListOptions } from './pagination.ts';
export { retryRead } from './retry-read.ts';
export { createServiceClient, serviceClientFromEnv } from './service-client.ts';
export type * from './types.ts';
export { type VerifiedWebhookEvent, verifyWebhook } from './webhooks.ts';
