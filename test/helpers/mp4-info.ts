/** What mp4box reads from an MP4's boxes (tracks, sizes, duration): an independent reader's view. */
import { createFile, MP4BoxBuffer } from 'mp4box';
import type { Json } from './json.ts';

export function mp4Info(bytes: Buffer): Promise<Json> {
  return new Promise((resolve, reject) => {
    const file = createFile();
    file.onReady = resolve;
    file.onError = (_module: string, message: string) => reject(new Error(message));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(buffer, 0));
    file.flush();
  });
}
