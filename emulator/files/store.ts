/**
 * Uploaded files, kept in memory. A file's `url` is served by the emulator's CDN, so it works as
 * the image input of any model. Size limit (not shown in the spec; our choice): 10 MiB decoded.
 */
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

export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private nextSeq = 1;

  constructor(private readonly cdnUrl: () => string) {}

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
      id: `file_${seq}`,
      seq,
      filename: body.filename,
      contentType: body.content_type,
      data,
      createdAt: new Date().toISOString(),
    };
    this.files.set(file.id, file);
    return file;
  }

  get(id: string): StoredFile | undefined {
    return this.files.get(id);
  }

  list(): StoredFile[] {
    return [...this.files.values()];
  }

  delete(id: string): boolean {
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
