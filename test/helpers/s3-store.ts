/**
 * Stores on the suite's S3 server (test/global-setup.ts), each under a prefix no other test uses,
 * and the environment a worker or the CLI needs to reach it.
 */
import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { inject, onTestFinished } from 'vitest';
import { S3Store } from '../../store/s3.ts';

/** The AWS SDK environment of the suite's S3 server. */
export function s3Env(): Readonly<Record<string, string>> {
  return inject('s3').env;
}

/** `s3://<bucket>/<unique prefix>`: a location no other test writes to. */
export function uniqueS3Url(label = 'test'): string {
  return `s3://${inject('s3').bucket}/${label}-${randomUUID()}`;
}

/** A client of the suite's server, destroyed when the test ends. */
export function s3Client(): S3Client {
  const env = s3Env();
  const client = new S3Client({
    endpoint: env.AWS_ENDPOINT_URL_S3!,
    forcePathStyle: true,
    region: env.AWS_REGION!,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  onTestFinished(() => client.destroy());
  return client;
}

/** An S3 store under a fresh prefix of the suite's bucket. */
export function s3TestStore(label = 'test'): S3Store {
  const url = new URL(uniqueS3Url(label));
  return new S3Store({ bucket: url.host, prefix: `${url.pathname.slice(1)}/` }, s3Client());
}
