/**
 * A store whose writes and reads are spans (`store.write`, `store.createOnce`, …) with the key and
 * the backend, so a trace shows where a job's download landed and when its record was made. A
 * tracing worker wraps the stores its activities open (worker/create-worker.ts); listings are
 * left out, their work is in the caller's span.
 */
import type { Readable } from 'node:stream';
import type { Attributes } from '@opentelemetry/api';
import { inSpan } from '../telemetry/spans.ts';
import type { Store } from './types.ts';

/** An error of the store by its code (ENOSPC, EACCES, an S3 error's name), lower case. */
function outcomeOf(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  const named = typeof code === 'string' ? code : typeof name === 'string' ? name : 'error';
  return named.toLowerCase();
}

export function tracedStore(store: Store): Store {
  const backend = store.location.startsWith('s3://') ? 's3' : 'folder';
  const span = <T>(operation: string, attributes: Attributes, work: () => Promise<T>) =>
    inSpan(`store.${operation}`, { 'mediaflow.store.backend': backend, ...attributes }, work, { outcomeOf });
  return {
    location: store.location,
    createOnce: (key, body) =>
      span('createOnce', { 'mediaflow.store.key': key }, () => store.createOnce(key, body)),
    put: (key, body, options) =>
      span('put', { 'mediaflow.store.key': key }, () => store.put(key, body, options)),
    read: (key) => span('read', { 'mediaflow.store.key': key }, () => store.read(key)),
    readAll: (keys) => span('readAll', { 'mediaflow.store.keys': keys.length }, () => store.readAll(keys)),
    readRange: (key, start, end) =>
      span('readRange', { 'mediaflow.store.key': key }, () => store.readRange(key, start, end)),
    stat: (key) => store.stat(key),
    list: (prefix) => store.list(prefix),
    listTagged: (prefix) => store.listTagged(prefix),
    write: (key, body: Readable, options) =>
      span('write', { 'mediaflow.store.key': key }, () => store.write(key, body, options)),
    open: (key) => store.open(key),
    move: (from, to) => span('move', { 'mediaflow.store.key': to }, () => store.move(from, to)),
    remove: (key) => span('remove', { 'mediaflow.store.key': key }, () => store.remove(key)),
    unfinished: (prefix) => store.unfinished(prefix),
  };
}
