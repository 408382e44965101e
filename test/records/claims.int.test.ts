/**
 * Claims (records/claims.ts): create-once objects found by idempotency key with one read in S3
 * mode, a checked appended log on a folder; one table of behaviours for both.
 */
import { appendFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addClaims, ClaimOwners, claimsLogOf, type NewClaim, readClaims } from '../../records/claims.ts';
import { ClaimsIndex } from '../../records/claims-index.ts';
import { LocalStore, type Store } from '../../store/index.ts';
import { s3TestStore } from '../helpers/s3-store.ts';

const claim = (id: string, idempotencyKey = `i${id}`): NewClaim => ({
  prediction_id: id,
  key: `k${id}`,
  regen: 0,
  idempotency_key: idempotencyKey,
});

async function folder(): Promise<Store> {
  return new LocalStore(await mkdtemp(join(tmpdir(), 'mediaflow-claims-')));
}

const backends: Array<[string, () => Promise<Store>]> = [
  ['folder', folder],
  ['s3', async () => s3TestStore('claims')],
];

describe.each(backends)('claims in a %s', (name, open) => {
  it('are found by idempotency key by every worker, including claims made after its first lookup', async () => {
    const store = await open();
    const index = new ClaimsIndex();
    await addClaims(store, 'c', [claim('1')]);
    expect((await index.of(store, 'c').lookup('i1'))?.prediction_id).toBe('1');
    expect(await index.of(store, 'c').lookup('i2')).toBeUndefined();
    await addClaims(store, 'c', [claim('2'), claim('3')]);
    const claims = index.of(store, 'c');
    const [two, three] = await Promise.all([claims.lookup('i2'), claims.lookup('i3')]);
    expect([two?.prediction_id, three?.prediction_id]).toEqual(['2', '3']);
  });

  it('keep each campaign to its own claims, even in a shared output location', async () => {
    const store = await open();
    await addClaims(store, 'spring', [claim('1')]);
    await addClaims(store, 'autumn', [claim('2')]);
    expect((await readClaims(store, 'spring')).map((c) => [c.campaign, c.prediction_id])).toEqual([
      ['spring', '1'],
    ]);
    // Reconciliation still sees every campaign's, so it never adopts another campaign's prediction.
    expect(await new ClaimOwners(store).read()).toEqual(
      new Map([
        ['1', 'i1'],
        ['2', 'i2'],
      ]),
    );
  });

  it('claim a second prediction made under one key (a service ignoring keys) beside the first', async () => {
    const store = await open();
    await addClaims(store, 'c', [claim('1', 'same')]);
    await addClaims(store, 'c', [claim('2', 'same'), claim('1', 'same')]);
    expect([...new Set((await readClaims(store, 'c')).map((c) => c.prediction_id))].sort()).toEqual([
      '1',
      '2',
    ]);
    // The first stays the key's claim.
    expect((await new ClaimsIndex().of(store, 'c').lookup('same'))?.prediction_id).toBe('1');
  });

  it("name each prediction's owner, rereading only claims that are new or were written again", async () => {
    const store = await open();
    const reads: string[][] = [];
    const counted: Store = Object.assign(Object.create(store), {
      readAll: (keys: readonly string[]) => {
        reads.push([...keys]);
        return store.readAll(keys);
      },
    });
    const owners = new ClaimOwners(counted);
    await addClaims(store, 'spring', [claim('1'), claim('2')]);
    expect(await owners.read()).toEqual(
      new Map([
        ['1', 'i1'],
        ['2', 'i2'],
      ]),
    );
    await addClaims(store, 'autumn', [claim('3')]);
    const three = new Map([
      ['1', 'i1'],
      ['2', 'i2'],
      ['3', 'i3'],
    ]);
    expect(await owners.read()).toEqual(three);
    expect(await owners.read()).toEqual(three);
    await addClaims(store, 'spring', [claim('4')]);
    expect((await owners.read()).get('4')).toBe('i4');
    // Every claim first; then autumn's; then none; then spring's new one (a folder: its log again).
    expect(reads.map((keys) => keys.length)).toEqual(name === 'folder' ? [1, 1, 0, 1] : [2, 1, 0, 1]);
  });

  it('skip what is not a claim instead of trusting it', async () => {
    const store = await open();
    await addClaims(store, 'c', [claim('1')]);
    await store.put('.mediaflow/claims/c/forged', '{"prediction_id":7}');
    expect((await readClaims(store, 'c')).map((c) => c.prediction_id)).toEqual(['1']);
  });
});

describe("a folder's claims log", () => {
  it('is read whole lines at a time, the lines after a torn one included', async () => {
    const store = await folder();
    const log = join(store.location, claimsLogOf('c'));
    await mkdir(join(store.location, '.mediaflow', 'claims'), { recursive: true });
    const line = (id: string) => JSON.stringify({ campaign: 'c', ...claim(id) });
    await appendFile(log, `${line('1')}\n{"prediction_id":"2","ke\n${line('3')}\n`);
    await addClaims(store, 'c', [claim('4')]);
    expect((await readClaims(store, 'c')).map((c) => c.prediction_id).sort()).toEqual(['1', '3', '4']);
    const index = new ClaimsIndex();
    expect((await index.of(store, 'c').lookup('i3'))?.prediction_id).toBe('3');
    expect([...(await new ClaimOwners(store).read()).keys()].sort()).toEqual(['1', '3', '4']);
  });

  it('still finds a claim when the log was replaced under the worker that indexed it', async () => {
    const store = await folder();
    await addClaims(store, 'c', [claim('1'), claim('2')]);
    const claims = new ClaimsIndex().of(store, 'c');
    expect((await claims.lookup('i1'))?.prediction_id).toBe('1');
    // Restored from a backup in another order: the line where claim 1 started is claim 2's now.
    const log = join(store.location, claimsLogOf('c'));
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    await writeFile(log, `${lines.reverse().join('\n')}\n`);
    expect((await claims.lookup('i1'))?.prediction_id).toBe('1');
    expect((await claims.lookup('i2'))?.prediction_id).toBe('2');
  });
});
