/**
 * Turns a planned input into what is sent: the parent's output URL where the plan says
 * `{{from.output}}`, and an uploaded file's URL where it names a local file. Uploads are cached
 * per worker by content, so a picture shared by many jobs is sent once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { ServiceClient } from '../api/client/index.ts';
import { FROM_OUTPUT, LOCAL_FILE_PREFIX, type PlannedJob } from '../plan/types.ts';
import type { Manifest } from './manifest.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

export type Resolution =
  | { readonly ok: true; readonly input: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

export class InputResolver {
  private readonly uploads = new Map<string, Promise<string>>();

  constructor(private readonly client: ServiceClient) {}

  async resolve(job: PlannedJob, parentName: string | null, manifest: Manifest): Promise<Resolution> {
    const input: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(job.input)) {
      if (value === FROM_OUTPUT) {
        const parent = job.parent ? await manifest.get(job.parent) : undefined;
        if (!parent) return { ok: false, reason: `its parent ${parentName ?? job.parent} has no output` };
        input[field] = parent.output_url;
      } else if (typeof value === 'string' && value.startsWith(LOCAL_FILE_PREFIX)) {
        input[field] = await this.upload(value.slice(LOCAL_FILE_PREFIX.length));
      } else {
        input[field] = value;
      }
    }
    return { ok: true, input };
  }

  /** Cached by content, not path: an edited picture is uploaded again. */
  private async upload(path: string): Promise<string> {
    const data = await readFile(path);
    const digest = createHash('sha256').update(data).digest('hex');
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
