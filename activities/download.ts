/**
 * Downloads an output file without ever leaving a partial one in place: the body streams into a
 * temporary file beside the target while its sha256 is computed, the length is checked against
 * Content-Length, and only then is it renamed into place (rename is atomic on one filesystem).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { ServiceError } from '../api/client/index.ts';

export interface Downloaded {
  readonly sha256: string;
  readonly bytes: number;
}

/** Output links point at the CDN, a different origin from the API: never send the API key there. */
const cdn = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

export interface DownloadOptions {
  /**
   * Remove temporary files an earlier attempt left beside the target (a worker killed
   * mid-download). Only on retries: listing a folder of 100,000 outputs for every download would not scale.
   */
  readonly cleanUp: boolean;
}

export async function downloadFile(
  url: string,
  target: string,
  { cleanUp }: DownloadOptions,
): Promise<Downloaded> {
  await mkdir(dirname(target), { recursive: true });
  if (cleanUp) await removeLeftovers(target);
  const temporary = `${target}.${randomBytes(4).toString('hex')}.part`;
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const response = await request(url, {
      dispatcher: cdn,
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new ServiceError({
        message: `download of ${url} answered HTTP ${response.statusCode}`,
        status: response.statusCode,
        type: 'download_error',
        code: 'DOWNLOAD_FAILED',
        retryable: response.statusCode >= 500 || response.statusCode === 429 || response.statusCode === 404,
      });
    }
    const expected = Number(response.headers['content-length'] ?? Number.NaN);
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        bytes += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(response.body, count, createWriteStream(temporary));
    if (!Number.isNaN(expected) && bytes !== expected) {
      throw new ServiceError({
        message: `download of ${url} stopped after ${bytes} of ${expected} bytes`,
        status: null,
        type: 'download_error',
        code: 'DOWNLOAD_TRUNCATED',
        retryable: true,
      });
    }
    await rename(temporary, target);
    return { sha256: hash.digest('hex'), bytes };
  } catch (error) {
    await rm(temporary, { force: true });
    if (error instanceof ServiceError) throw error;
    throw new ServiceError({
      message: `download of ${url} failed: ${(error as Error).message}`,
      status: null,
      type: 'download_error',
      code: 'DOWNLOAD_FAILED',
      retryable: true,
    });
  }
}

/** Temporary files of an earlier attempt at this target, left by a worker killed mid-download. */
async function removeLeftovers(target: string): Promise<void> {
  const prefix = `${basename(target)}.`;
  const names = await readdir(dirname(target));
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.part'))
      .map((name) => rm(join(dirname(target), name), { force: true })),
  );
}
