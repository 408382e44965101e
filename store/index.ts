/**
 * The store of a campaign's output location: a folder or an S3 bucket (store/types.ts).
 * Imports nothing of mediaflow's (ARCHITECTURE.md): the activities and the CLI give it meaning.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { LazyS3Store } from './lazy-s3.ts';
import { LocalStore } from './local.ts';
import { parseLocation } from './location.ts';
import type { Store } from './types.ts';

export { OutputRoot, OutsideOutputFolder } from './confine.ts';
export { BadKey } from './keys.ts';
export * from './layout.ts';
export { isS3Url, type Location, parseLocation } from './location.ts';
export { openPlan, type PagedPlan, PlanDamaged, writePlan } from './plan-pages.ts';
export { type S3Failure, s3FailureOf } from './s3-failure.ts';
export type { Created, PutOptions, Store, Stored, Unfinished, WriteOptions, Written } from './types.ts';
export { LocalStore };

/**
 * Opens the store `location` names. S3 stores share one client (its connection pool) unless given
 * one, created on first use from the AWS SDK's standard configuration (store/s3.ts); the SDK
 * itself loads at that first use (store/lazy-s3.ts).
 */
export function openStore(location: string, client?: S3Client): Store {
  const where = parseLocation(location);
  return where.kind === 'folder' ? new LocalStore(where.path) : new LazyS3Store(where, client);
}
