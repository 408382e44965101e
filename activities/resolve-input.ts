/**
 * Turns a planned input into what is sent: the parent's output URL where the plan says
 * `{{from.output}}`, and an uploaded file's URL where it names a local file. A local file is
 * hashed again before upload and must match the sha256 the plan recorded (the job key covers it):
 * a picture edited since planning would otherwise be generated, and paid for, under the old key.
 * Uploads are cached per worker by content, so a picture shared by many jobs is sent once.
 */

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { ServiceClient } from '../api/client/index.ts';
import type { FailureKind } from '../contract/failure-policy.ts';
import { FROM_OUTPUT, LOCAL_FILE_PREFIX, type PlannedJob } from '../plan/types.ts';
import type { Manifest } from '../records/manifest.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

export type Resolution =
  | { readonly ok: true; readonly input: Record<string, unknown> }
  /** The parent has no output. */
  | { readonly ok: false; readonly kind: 'skipped'; readonly reason: string }
  /** A local file is missing or no longer what was planned: running it would not be this job. */
  | {
      readonly ok: false;
      readonly kind: 'rejected';
      readonly code: string;
      readonly reason: string;
      /** The failure policy's kind: `rejected` for a local file, the service's for a refused upload. */
      readonly failure: FailureKind;
    };

export class InputResolver {
  private readonly uploads = new Map<string, Promise<string>>();

  private readonly client: ServiceClient;

  constructor(client: ServiceClient) {
    this.client = client;
  }

  async resolve(job: PlannedJob, parentName: string | null, manifest: Manifest): Promise<Resolution> {
    const input: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(job.input)) {
      if (value === FROM_OUTPUT) {
        const parent = job.parent ? await manifest.get(job.parent) : undefined;
        if (!parent)
          return {
            ok: false,
            kind: 'skipped',
            reason: `its parent ${parentName ?? job.parent} has no output`,
          };
        input[field] = parent.output_url;
      } else if (typeof value === 'string' && value.startsWith(LOCAL_FILE_PREFIX)) {
        const path = value.slice(LOCAL_FILE_PREFIX.length);
        const data = await readFile(path).catch(() => null);
        const digest = data && createHash('sha256').update(data).digest('hex');
        if (!data || digest !== job.files?.[path]) {
          const what = data ? 'has changed since the plan was made' : 'cannot be read';
          return {
            ok: false,
            kind: 'rejected',
            code: 'LOCAL_FILE_CHANGED',
            reason: `${path} ${what}: plan the campaign again`,
            failure: 'rejected',
          };
        }
        input[field] = await this.upload(path, data, digest);
      } else {
        input[field] = value;
      }
    }
    return { ok: true, input };
  }

  /** Cached by content, not path: an edited picture is uploaded again. */
  private upload(path: string, data: Buffer, digest: string): Promise<string> {
    let url = this.uploads.get(digest);
    if (!url) {
      const contentType = CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      url = this.client.files
        .upload({ filename: `${digest.slice(0, 12)}-${basename(path)}`, contentType, data })
        .then((file) => file.url);
      url.catch(() => this.uploads.delete(digest));
      this.uploads.set(digest, url);
    }
    return url;
  }
}
