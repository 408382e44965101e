/**
 * One table of behaviours, run against both backends: a folder and a real S3 server (versitygw,
 * started by the suite's global setup). What a worker relies on must hold on either.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  BadKey,
  LocalStore,
  openPlan,
  openStore,
  PlanDamaged,
  type Store,
  writePlan,
} from '../../store/index.ts';
import { s3Client, s3TestStore, uniqueS3Url } from '../helpers/s3-store.ts';

const backends: Array<[string, () => Promise<Store>]> = [
  ['folder', async () => new LocalStore(await mkdtemp(join(tmpdir(), 'mediaflow-store-')))],
  ['s3', async () => s3TestStore('contract')],
  // What workers and the CLI get: the AWS SDK loaded at the first call (store/lazy-s3.ts).
  ['s3 opened by its URL', async () => openStore(uniqueS3Url('contract-url'), s3Client())],
];

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function text(stream: Readable | undefined): Promise<string | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString();
}

describe.each(backends)('the %s store', (_name, open) => {
  it('creates a record once; a second create is told it exists and gets the first content', async () => {
    const store = await open();
    expect(await store.createOnce('.mediaflow/records/k1', '{"n":1}\n')).toEqual({ created: true });
    expect(await store.createOnce('.mediaflow/records/k1', '{"n":2}\n')).toEqual({
      created: false,
      existing: '{"n":1}\n',
    });
    expect(await store.read('.mediaflow/records/k1')).toBe('{"n":1}\n');
  });

  it('lets exactly one of many concurrent creators win, and every loser sees the winner', async () => {
    const store = await open();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, writer) =>
        store.createOnce('.mediaflow/claims/c/x', `writer ${writer}`),
      ),
    );
    const winners = results.flatMap((result, writer) => (result.created ? [writer] : []));
    expect(winners).toHaveLength(1);
    const stored = await store.read('.mediaflow/claims/c/x');
    expect(stored).toBe(`writer ${winners[0]}`);
    for (const result of results) if (!result.created) expect(result.existing).toBe(stored);
  });

  it('lists only unfinished writes: never a finished key, never anything in S3', async () => {
    const store = await open();
    await store.write('hero/a.png', Readable.from([Buffer.from('finished')]));
    await store.createOnce('.mediaflow/records/k', 'a record');
    expect(await collect(store.unfinished('hero/'))).toEqual([]);
    expect(await collect(store.unfinished('.mediaflow/records/'))).toEqual([]);
    expect(await collect(store.unfinished('nothing-here/'))).toEqual([]);
    expect(await store.stat('hero/a.png')).toEqual({ bytes: 8 });
  });

  it('answers undefined for what does not exist, and removing it is no error', async () => {
    const store = await open();
    expect(await store.read('nothing/here')).toBeUndefined();
    expect(await store.stat('nothing/here')).toBeUndefined();
    expect(await store.open('nothing/here')).toBeUndefined();
    expect(await store.readRange('nothing/here', 0, 10)).toBeUndefined();
    expect(await collect(store.list('nothing/'))).toEqual([]);
    await store.remove('nothing/here');
    await store.move('nothing/here', 'nothing/there');
    expect(await store.stat('nothing/there')).toBeUndefined();
  });

  it('reads many keys at once, in the order asked, undefined where there is none', async () => {
    const store = await open();
    const keys = Array.from({ length: 40 }, (_, i) => `.mediaflow/records/r${i}`);
    for (const [i, key] of keys.entries()) if (i % 3 !== 0) await store.put(key, `{"n":${i}}\n`);
    expect(await store.readAll(keys)).toEqual(keys.map((_, i) => (i % 3 === 0 ? undefined : `{"n":${i}}\n`)));
    expect(await store.readAll([])).toEqual([]);
  });

  it('replaces with put, reads byte ranges, and sizes objects', async () => {
    const store = await open();
    await store.put('manifest.jsonl', 'first\n');
    await store.put('manifest.jsonl', 'line one\nline two\n');
    expect(await store.read('manifest.jsonl')).toBe('line one\nline two\n');
    expect(await store.stat('manifest.jsonl')).toEqual({ bytes: 18 });
    expect((await store.readRange('manifest.jsonl', 5, 12))?.toString()).toBe('one\nlin');
    expect((await store.readRange('manifest.jsonl', 14, 100))?.toString()).toBe('two\n');
    expect((await store.readRange('manifest.jsonl', 18, 30))?.length).toBe(0);
  });

  it('lists the keys under a prefix, nested ones too, in byte order, and nothing else', async () => {
    const store = await open();
    for (const key of [
      '.mediaflow/records/b',
      '.mediaflow/records/a',
      '.mediaflow/records/sub/c',
      'hero/x.png',
    ]) {
      await store.put(key, key);
    }
    expect(await collect(store.list('.mediaflow/records/'))).toEqual([
      '.mediaflow/records/a',
      '.mediaflow/records/b',
      '.mediaflow/records/sub/c',
    ]);
    expect(await collect(store.list(''))).toContain('hero/x.png');
  });

  it('streams a file in, returning its size and sha256, and streams it back whole', async () => {
    const store = await open();
    const data = randomBytes(300_000);
    const written = await store.write(
      'hero/one.png',
      Readable.from([data.subarray(0, 1000), data.subarray(1000)]),
    );
    expect(written).toEqual({ bytes: data.length, sha256: sha256(data) });
    expect(await store.stat('hero/one.png')).toEqual({ bytes: data.length });
    const back = await store.open('hero/one.png');
    const chunks: Buffer[] = [];
    for await (const chunk of back!) chunks.push(Buffer.from(chunk as Buffer));
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(data));
  });

  it('streams a file larger than one upload part (a multipart upload on S3) intact', async () => {
    const store = await open();
    const data = randomBytes(11 * 1024 * 1024);
    const pieces = Array.from({ length: 11 }, (_, i) =>
      data.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024),
    );
    expect(await store.write('teaser/big.mp4', Readable.from(pieces))).toEqual({
      bytes: data.length,
      sha256: sha256(data),
    });
    expect(await store.stat('teaser/big.mp4')).toEqual({ bytes: data.length });
    expect(
      (await store.readRange('teaser/big.mp4', 5 * 1024 * 1024, 5 * 1024 * 1024 + 16))?.toString('hex'),
    ).toBe(data.subarray(5 * 1024 * 1024, 5 * 1024 * 1024 + 16).toString('hex'));
  });

  it('keeps the old file when a stream breaks halfway, and leaves nothing listed behind', async () => {
    const store = await open();
    await store.put('hero/one.png', 'good');
    const broken = new Readable({
      read() {
        this.push(randomBytes(1000));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.write('hero/one.png', broken)).rejects.toThrow('connection reset');
    expect(await store.read('hero/one.png')).toBe('good');
    expect(await collect(store.list('hero/'))).toEqual(['hero/one.png']);
    expect(await text(await store.open('hero/one.png'))).toBe('good');
  });

  it('moves an object aside under another key', async () => {
    const store = await open();
    await store.put('hero/one.png', 'wrong bytes');
    await store.move('hero/one.png', 'hero/one.png.mismatch');
    expect(await store.stat('hero/one.png')).toBeUndefined();
    expect(await store.read('hero/one.png.mismatch')).toBe('wrong bytes');
  });

  it.each(['../escape', '/absolute', 'a//b', 'a/./b', 'a\\b', ''])(
    'refuses the key %j, which could lead outside the store',
    async (key) => {
      const store = await open();
      await expect(store.put(key, 'x')).rejects.toThrow(BadKey);
      await expect(store.read(key)).rejects.toThrow(BadKey);
      await expect(store.readAll([key])).rejects.toThrow(BadKey);
    },
  );

  it('stores a plan in pages, with a key index, so a job is read without the whole plan', async () => {
    const store = await open();
    const jobs = Array.from({ length: 2_345 }, (_, i) => ({
      key: sha256(`job ${i}`).slice(0, 32),
      name: `job-${i}`,
    }));
    const digest = await writePlan(store, { campaign: 'c', steps: [] }, jobs, 1_000);
    const plan = await openPlan(store, digest);
    expect(plan).toMatchObject({ jobCount: 2_345, pageSize: 1_000, rest: { campaign: 'c', steps: [] } });
    const last = await plan.page(2);
    expect(last).toHaveLength(345);
    expect(last[344]).toEqual(jobs[2_344]);
    expect(await plan.page(3)).toEqual([]);
    expect(await plan.indexOf(jobs[1_234]!.key)).toBe(1_234);
    expect(await plan.indexOf(sha256('not a job').slice(0, 32))).toBe(-1);
    // The same plan written again is the same digest (content-addressed).
    expect(await writePlan(store, { campaign: 'c', steps: [] }, jobs, 1_000)).toBe(digest);
  });

  it('refuses a stored plan that is missing or was changed, page by page', async () => {
    const store = await open();
    await expect(openPlan(store, 'f'.repeat(32))).rejects.toThrow(PlanDamaged);
    const jobs = [{ key: 'ab'.repeat(16), name: 'one' }];
    const digest = await writePlan(store, { campaign: 'c' }, jobs);
    const plan = await openPlan(store, digest);
    await store.put(
      `.mediaflow/plans/${digest}/pages/0.json`,
      JSON.stringify([{ key: 'ab'.repeat(16), name: 'evil' }]),
    );
    await expect(plan.page(0)).rejects.toThrow(/does not match its digest/);
    await store.put(`.mediaflow/plans/${digest}/head.json`, JSON.stringify({ jobCount: 9 }));
    await expect(openPlan(store, digest)).rejects.toThrow(/does not match its digest/);
  });
});

describe('the S3 store on versitygw', () => {
  it('sends the sha256 of a whole-object write as its S3 checksum, which the server keeps', async () => {
    const store = s3TestStore('checksum');
    const data = randomBytes(50_000);
    await store.write('hero/one.png', Readable.from([data]));
    const head = await store.client.send(
      new HeadObjectCommand({ ...store.objectOf('hero/one.png'), ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumSHA256).toBe(createHash('sha256').update(data).digest('base64'));
  });
});

describe('the folder store', () => {
  it('reads the records and files an output folder of an earlier version holds', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mediaflow-store-'));
    await writeFile(join(folder, 'manifest.jsonl'), '{"key":"k"}\n');
    const store = new LocalStore(folder);
    expect(await store.read('manifest.jsonl')).toBe('{"key":"k"}\n');
    expect(await store.createOnce('manifest.jsonl', 'other')).toEqual({
      created: false,
      existing: '{"key":"k"}\n',
    });
  });
});
