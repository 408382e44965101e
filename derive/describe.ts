/**
 * An operation in a few words, as a derivative's provenance names what was done to its parent
 * (XMP, the signed manifest, the manifest line): `crop 1:1 (attention)`, `resize 1080×1920 pad`.
 * Assets are named by file name only: a path on the worker means nothing to whoever reads the file.
 */
import { basename } from 'node:path';
import type { Operation } from './operations.ts';

export function describeOperation(op: Operation): string {
  switch (op.op) {
    case 'crop':
      return `crop ${op.aspectRatio.join(':')} (${typeof op.focus === 'string' ? op.focus : `${op.focus.x}, ${op.focus.y}`})`;
    case 'resize':
      return `resize ${op.width ?? 'auto'}×${op.height ?? 'auto'} ${op.fit}`;
    case 'pad':
      return `pad ${op.width}×${op.height} ${op.position}`;
    case 'rotate':
      return `rotate ${op.degrees}°`;
    case 'text':
      return `text "${op.value}" ${op.position}`;
    case 'overlay':
      return `overlay ${basename(op.image.path)} ${op.position}`;
    case 'format':
      return `format ${op.type}${op.quality === null ? '' : ` q${op.quality}`}${op.maxBytes === null ? '' : ` ≤${op.maxBytes} bytes`}`;
    case 'trim':
      return `trim ${op.start}s${op.duration === null ? '' : ` +${op.duration}s`}`;
    case 'fps':
      return `fps ${op.value}`;
    case 'mute':
      return 'mute';
    case 'audio':
      return `audio ${basename(op.file.path)}`;
    case 'frame':
      return `frame at ${op.at}s`;
  }
}

/** What C2PA calls the action (its standard action names), for the signed manifest's `c2pa.actions`. */
export function c2paActionOf(op: Operation): string {
  switch (op.op) {
    case 'crop':
      return 'c2pa.cropped';
    case 'resize':
    case 'pad':
      return 'c2pa.resized';
    case 'rotate':
      return 'c2pa.orientation';
    case 'format':
    case 'fps':
      return 'c2pa.transcoded';
    default:
      return 'c2pa.edited';
  }
}
