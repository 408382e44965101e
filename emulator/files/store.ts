/**
 * Uploaded files, kept in memory. A file's `url` is served by the emulator's CDN to a caller with
 * the key (files/served-type.ts says as what), so it works as the image input of any model. Size limit (not shown in the spec; our choice): 10 MiB decoded.
 * With a blob folder (the embedded emulator's state, emulator/persistence) each file's bytes are
 * also written there once, at upload: the state file then holds only the metadata, so saving it
 * never rewrites megabytes of uploads.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileObject, UploadFileBody } from '../../api/wire/index.ts';
import { ApiError } from '../http/errors.ts';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface StoredFile {
  readonly id: string;
  readonly seq: number;
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
  readonly createdAt: string;
}

export type FileMeta = Omit<StoredFile, 'data'>;

export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private nextSeq = 1;

  private readonly cdnUrl: () => string;
  private readonly blobDir?: string;

  constructor(cdnUrl: () => string, blobDir?: string) {
    this.cdnUrl = cdnUrl;
    this.blobDir = blobDir;
  }

  upload(body: UploadFileBody): StoredFile {
    // `data` is checked as standard base64 by the wire schema (UploadFileBody) before it gets here.
    const data = Buffer.from(body.data, 'base64');
    if (data.length > MAX_FILE_BYTES) {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `the file has ${data.length} bytes; the limit is ${MAX_FILE_BYTES}`,
        {
          param: 'data',
        },
      );
    }
    const seq = this.nextSeq++;
    const file: StoredFile = {
      // Unguessable: the id is in the file's URL, and one upload must not lead to the others.
      id: `file_${randomBytes(16).toString('hex')}`,
      seq,
      filename: body.filename,
      contentType: body.content_type,
      data,
      createdAt: new Date().toISOString(),
    };
    if (this.blobDir) {
      // Written before the upload is answered, tmp + rename: a blob is there whole or not at all.
      // Private like the state file beside it (0700 / 0600): uploads may be a user's own images.
      mkdirSync(this.blobDir, { recursive: true, mode: 0o700 });
      const path = join(this.blobDir, file.id);
      writeFileSync(`${path}.tmp`, data, { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    }
    this.files.set(file.id, file);
    return file;
  }

  save(): { nextSeq: number; files: FileMeta[] } {
    return { nextSeq: this.nextSeq, files: this.list().map(({ data: _, ...meta }) => meta) };
  }

  /** Files whose blob is missing (removed by hand) are dropped rather than served empty. */
  restore(saved: { nextSeq: number; files: readonly FileMeta[] }): void {
    this.files.clear();
    this.nextSeq = saved.nextSeq;
    if (!this.blobDir) return;
    for (const meta of saved.files) {
      try {
        this.files.set(meta.id, { ...meta, data: readFileSync(join(this.blobDir, meta.id)) });
      } catch {
        // Lost blob: the file is gone, as if deleted.
      }
    }
  }

  get(id: string): StoredFile | undefined {
    return this.files.get(id);
  }

  list(): StoredFile[] {
    return [...this.files.values()];
  }

  delete(id: string): boolean {
    if (this.blobDir && this.files.has(id)) rmSync(join(this.blobDir, id), { force: true });
    return this.files.delete(id);
  }

  toWire(file: StoredFile): FileObject {
    return {
      id: file.id,
      filename: file.filename,
      content_type: file.contentType,
      bytes: file.data.length,
      url: `${this.cdnUrl()}/files/${file.id}/${encodeURIComponent(file.filename)}`,
      created_at: file.createdAt,
    };
  }
}
