/**
 * An S3 store that loads the AWS SDK at its first call. The SDK costs a process memory on import
 * (docs/benchmarks.md, "Measurements behind the code"), which a worker writing to a folder, and
 * every CLI command that never meets an s3:// location, should not pay (docs/engine.md, "Memory").
 */
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3Url } from './location.ts';
import type { S3Location, S3Store } from './s3.ts';
import type {
  Created,
  PutOptions,
  Store,
  Stored,
  Tagged,
  Unfinished,
  WriteOptions,
  Written,
} from './types.ts';

/** The client S3 stores opened without one share (its connection pool), made at first use. */
let sharedClient: S3Client | undefined;

export class LazyS3Store implements Store {
  readonly location: string;
  private loaded: Promise<S3Store> | undefined;

  private readonly where: S3Location;
  private readonly client?: S3Client;

  constructor(where: S3Location, client?: S3Client) {
    this.where = where;
    this.client = client;

    this.location = s3Url(where);
  }

  private store(): Promise<S3Store> {
    this.loaded ??= import('./s3.ts').then((s3) => {
      if (this.client) return new s3.S3Store(this.where, this.client);
      sharedClient ??= s3.defaultS3Client();
      return new s3.S3Store(this.where, sharedClient);
    });
    return this.loaded;
  }

  async createOnce(key: string, body: string): Promise<Created> {
    return (await this.store()).createOnce(key, body);
  }
  async put(key: string, body: string, options?: PutOptions): Promise<void> {
    return (await this.store()).put(key, body, options);
  }
  async read(key: string): Promise<string | undefined> {
    return (await this.store()).read(key);
  }
  async readAll(keys: readonly string[]): Promise<(string | undefined)[]> {
    return (await this.store()).readAll(keys);
  }
  async readRange(key: string, start: number, end: number): Promise<Buffer | undefined> {
    return (await this.store()).readRange(key, start, end);
  }
  async stat(key: string): Promise<Stored | undefined> {
    return (await this.store()).stat(key);
  }
  async *list(prefix: string): AsyncIterable<string> {
    yield* (await this.store()).list(prefix);
  }
  async *listTagged(prefix: string): AsyncIterable<Tagged> {
    yield* (await this.store()).listTagged(prefix);
  }
  async write(key: string, body: Readable, options?: WriteOptions): Promise<Written> {
    return (await this.store()).write(key, body, options);
  }
  async open(key: string): Promise<Readable | undefined> {
    return (await this.store()).open(key);
  }
  async move(from: string, to: string): Promise<void> {
    return (await this.store()).move(from, to);
  }
  async remove(key: string): Promise<void> {
    return (await this.store()).remove(key);
  }
  /** Nothing is ever left unfinished in S3 (S3Store.unfinished): no SDK to load for it. */
  async *unfinished(_prefix: string): AsyncIterable<Unfinished> {}
}
