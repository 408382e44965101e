/**
 * The S3 backend (`s3://bucket/prefix`): any S3-compatible server through the AWS SDK. Where it is
 * and who we are come from the SDK's own configuration (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_PROFILE and its files), never from a
 * spec or argv, so no secret reaches Temporal history or a log. Path-style addressing is used
 * whenever a custom endpoint is set: self-hosted servers (versitygw, Ceph, ...) rarely serve
 * bucket-named host names.
 *
 * Records are created with `If-None-Match: *` (conditional writes; versitygw v1.8 honours them,
 * test/store/contract.int.test.ts checks it): the server refuses the second create with 412, and the
 * loser reads the winner's record.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import pLimit from 'p-limit';
import { checkKey, checkPrefix } from './keys.ts';
import { s3Url } from './location.ts';
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

export interface S3Location {
  readonly bucket: string;
  /** Empty, or ends with `/`. */
  readonly prefix: string;
}

/** Connections of a process's S3 client (defaultS3Client). */
const S3_SOCKETS = 256;

/** Reads of one readAll in flight: what reading every record did before it was the store's. */
const READS_IN_FLIGHT = 16;

/** How many times a create is tried again when the server reports a concurrent conditional write. */
const CONFLICT_RETRIES = 5;

export class S3Store implements Store {
  readonly location: string;

  private readonly where: S3Location;
  readonly client: S3Client;

  constructor(where: S3Location, client: S3Client = defaultS3Client()) {
    this.where = where;
    this.client = client;

    this.location = s3Url(where);
  }

  async createOnce(key: string, body: string): Promise<Created> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(
          new PutObjectCommand({
            ...this.objectOf(key),
            Body: body,
            IfNoneMatch: '*',
            ChecksumAlgorithm: 'SHA256',
          }),
        );
        return { created: true };
      } catch (error) {
        // 409: another conditional write of the key was in progress; S3 asks to try again.
        if (statusOf(error) === 409 && attempt < CONFLICT_RETRIES) continue;
        if (statusOf(error) !== 412) throw error;
      }
      const existing = await this.read(key);
      // Between our 412 and this read the object cannot vanish, unless someone deleted it: try again.
      if (existing !== undefined) return { created: false, existing };
    }
  }

  async put(key: string, body: string, options?: PutOptions): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        ...this.objectOf(key),
        Body: body,
        ChecksumAlgorithm: 'SHA256',
        ...(options?.contentType && { ContentType: options.contentType }),
      }),
    );
  }

  async read(key: string): Promise<string | undefined> {
    return missingAsUndefined(async () => {
      const reply = await this.client.send(new GetObjectCommand(this.objectOf(key)));
      return reply.Body!.transformToString('utf8');
    });
  }

  async readAll(keys: readonly string[]): Promise<(string | undefined)[]> {
    const limit = pLimit(READS_IN_FLIGHT);
    return Promise.all(keys.map((key) => limit(() => this.read(key))));
  }

  async readRange(key: string, start: number, end: number): Promise<Buffer | undefined> {
    if (end <= start) return (await this.stat(key)) ? Buffer.alloc(0) : undefined;
    return missingAsUndefined(async () => {
      try {
        const range = `bytes=${start}-${end - 1}`;
        const reply = await this.client.send(new GetObjectCommand({ ...this.objectOf(key), Range: range }));
        return Buffer.from(await reply.Body!.transformToByteArray());
      } catch (error) {
        // 416: the range starts past the object's end, which a file read answers with no bytes.
        if (statusOf(error) === 416) return Buffer.alloc(0);
        throw error;
      }
    });
  }

  async stat(key: string): Promise<Stored | undefined> {
    return missingAsUndefined(async () => {
      const reply = await this.client.send(new HeadObjectCommand(this.objectOf(key)));
      return { bytes: reply.ContentLength ?? 0 };
    });
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const { key } of this.listTagged(prefix)) yield key;
  }

  async *listTagged(prefix: string): AsyncIterable<Tagged> {
    const full = this.where.prefix + checkPrefix(prefix);
    for await (const page of paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.where.bucket, Prefix: full },
    )) {
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key.slice(this.where.prefix.length), tag: object.ETag ?? '' };
      }
    }
  }

  /** An unfinished upload is never visible (a bucket lifecycle rule reclaims its parts). */
  async *unfinished(_prefix: string): AsyncIterable<Unfinished> {}

  /** Nothing to clear of earlier writes (WriteOptions): an unfinished upload is never visible. */
  async write(key: string, body: Readable, _options?: WriteOptions): Promise<Written> {
    const hash = createHash('sha256');
    let bytes = 0;
    // A generator: the body's error fails the upload (which then aborts), never an unhandled event.
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of body) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    }
    // lib-storage: one PUT for a small body, a multipart upload (parts in parallel, memory bounded
    // by queueSize × partSize) for a large one. With SHA256 the SDK sends each part's checksum and
    // the server verifies it: the whole object's for a single PUT, per part for a multipart one.
    const upload = new Upload({
      client: this.client,
      params: { ...this.objectOf(key), Body: Readable.from(counted()), ChecksumAlgorithm: 'SHA256' },
      queueSize: 2,
    });
    await upload.done();
    return { bytes, sha256: hash.digest('hex') };
  }

  async open(key: string): Promise<Readable | undefined> {
    return missingAsUndefined(async () => {
      const reply = await this.client.send(new GetObjectCommand(this.objectOf(key)));
      return reply.Body as Readable;
    });
  }

  async move(from: string, to: string): Promise<void> {
    const source = encodeURIComponent(`${this.where.bucket}/${this.where.prefix}${checkKey(from)}`);
    const copied = await missingAsUndefined(() =>
      this.client.send(new CopyObjectCommand({ ...this.objectOf(to), CopySource: source })),
    );
    if (copied) await this.remove(from);
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand(this.objectOf(key)));
  }

  /** The bucket and object name of `key`. */
  objectOf(key: string): { Bucket: string; Key: string } {
    return { Bucket: this.where.bucket, Key: this.where.prefix + checkKey(key) };
  }
}

/** The SDK's standard configuration, with path-style addressing for a custom endpoint. */
export function defaultS3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  // The SDK warns once per process, on stderr, that its releases after January 2027 will need
  // Node 22; mediaflow pins the SDK (package-lock.json) and supports Node 20 (package.json
  // engines), so the warning only clutters the live view of `run`. The user's own setting wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const customEndpoint = Boolean(env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL);
  // A self-hosted server ignores the region but the SDK refuses to sign without one.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (customEndpoint ? 'us-east-1' : undefined);
  // Every output streams into an upload while records and claims are written: the SDK's default
  // of 50 sockets would queue a worker's 200 predictions in flight behind each other.
  const agent = { keepAlive: true, maxSockets: S3_SOCKETS };
  return new S3Client({
    forcePathStyle: customEndpoint,
    ...(region ? { region } : {}),
    requestHandler: { httpAgent: agent, httpsAgent: agent },
  });
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

async function missingAsUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}
