/**
 * The manifest's and claims' in-memory indexes file entries under a 52-bit hash of their key
 * (records/index-key.ts), which two keys may share. Here every key shares one, so each read
 * meets another key's line first: answers must still be exact, and a job's line never doubled.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { addClaims } from '../../records/claims.ts';
import { ClaimsIndex } from '../../records/claims-index.ts';
import { MANIFEST_FILE, Manifest } from '../../records/manifest.ts';
import { LocalStore } from '../../store/index.ts';
import { manifestEntry } from './manifest-entry.ts';

vi.mock('../../records/index-key.ts', () => ({ indexKey: () => 0 }));

describe('indexes whose keys collide', () => {
  it('give each job its own manifest line, and restore none that is listed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-collide-'));
    const writer = await Manifest.open(dir);
    for (const key of ['ka', 'kb', 'kc']) await writer.record(manifestEntry(key), null);
    const reader = await Manifest.open(dir);
    for (const key of ['kb', 'ka', 'kc']) expect((await reader.get(key))?.prediction_id).toBe(`p-${key}`);
    expect(await reader.get('kd')).toBeUndefined();
    // As a retried finish does: each is listed already, whatever line the index points at.
    for (const key of ['ka', 'kb', 'kc']) await reader.restoreLine(key);
    expect((await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('give each idempotency key its own claim', async () => {
    const store = new LocalStore(await mkdtemp(join(tmpdir(), 'mf-collide-')));
    const claim = (id: string) => ({ prediction_id: id, key: `k${id}`, regen: 0, idempotency_key: `i${id}` });
    await addClaims(store, 'c', [claim('1'), claim('2'), claim('3')]);
    const claims = new ClaimsIndex().of(store, 'c');
    for (const id of ['2', '1', '3']) expect((await claims.lookup(`i${id}`))?.prediction_id).toBe(id);
    expect(await claims.lookup('i4')).toBeUndefined();
  });
});
