import { appendFileSync, existsSync, writeSync } from 'node:fs';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeWriter, ShortWrite } from '../../records/jsonl.ts';
import { MANIFEST_FILE, Manifest, type ManifestEntry, RECENT_ENTRIES } from '../../records/manifest.ts';
import { Manifests } from '../../records/manifests.ts';
import { openStore } from '../../store/index.ts';
import { s3Client, uniqueS3Url } from '../helpers/s3-store.ts';
import { manifestEntry } from './manifest-entry.ts';

describe('manifest', () => {
  it('finds lines another worker appends while many lookups run at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const manifest = await Manifest.open(dir);
    const other = (key: string) =>
      appendFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifestEntry(key))}\n`);
    const lookups: Promise<ManifestEntry | undefined>[] = [];
    for (let i = 0; i < 200; i++) {
      other(`other-${i}`);
      if (i % 3 === 0) lookups.push(manifest.record(manifestEntry(`own-${i}`), null).then(() => undefined));
      // Misses force a read of the file, overlapping with the reads started before.
      lookups.push(manifest.get(`other-${i}`), manifest.get(`missing-${i}`));
    }
    const found = await Promise.all(lookups);
    expect(found.filter((e) => e?.key.startsWith('other-'))).toHaveLength(200);
    expect(await manifest.get('own-3')).toBeDefined();
    for (let i = 0; i < 200; i++) expect(await manifest.get(`other-${i}`)).toBeDefined();
    // A fresh reader sees exactly the lines written, each once.
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    const reopened = await Manifest.open(dir);
    expect(await reopened.recorded()).toHaveLength(lines.length);
  });

  it("lists a job whose writer died between its record and its line, once, at the job's next attempt", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    // The dead writer's record, with no line in manifest.jsonl.
    await openStore(dir).createOnce('.mediaflow/records/dead', `${JSON.stringify(manifestEntry('dead'))}\n`);
    const next = await Manifest.open(dir);
    expect((await next.get('dead'))?.prediction_id).toBe('p-dead');
    expect(existsSync(join(dir, MANIFEST_FILE))).toBe(false);
    await next.restoreLine('dead');
    await next.restoreLine('dead');
    await (await Manifest.open(dir)).restoreLine('dead');
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).key)).toEqual(['dead']);
  });

  it('restores the lines of many jobs at once: only those of records never listed, once each', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const store = openStore(dir);
    const listed = await Manifest.open(dir);
    await listed.record(manifestEntry('a'), null);
    await listed.record({ ...manifestEntry('a'), prediction_id: 'p-a-again', regenerations: 1 }, 'p-a');
    // Two writers killed between their record and its line.
    for (const key of ['dead', 'gone'])
      await store.createOnce(`.mediaflow/records/${key}`, `${JSON.stringify(manifestEntry(key))}\n`);
    await (await Manifest.open(dir)).restoreLines(['a', 'dead', 'never', 'gone', 'dead']);
    await (await Manifest.open(dir)).restoreLines(['a', 'dead', 'gone']);
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).prediction_id)).toEqual([
      'p-a',
      'p-a-again',
      'p-dead',
      'p-gone',
    ]);
  });

  it("a walk over a plan finds each job's latest line, a record with no line, and what a damaged file hides", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const file = join(dir, MANIFEST_FILE);
    const line = (entry: ManifestEntry) => appendFileSync(file, `${JSON.stringify(entry)}\n`);
    line(manifestEntry('a'));
    line({ ...manifestEntry('a'), prediction_id: 'p-a-again', regenerations: 1 });
    await openStore(dir).createOnce('.mediaflow/records/dead', `${JSON.stringify(manifestEntry('dead'))}\n`);
    const entryOf = await (await Manifest.open(dir)).walk();
    expect((await entryOf('a'))?.prediction_id).toBe('p-a-again');
    expect((await entryOf('dead'))?.prediction_id).toBe('p-dead');
    expect(await entryOf('never')).toBeUndefined();
    // A garbled line: the walk reads none of the file's lines itself, and each lookup is get()'s.
    appendFileSync(file, '{garbled\n');
    const damaged = await (await Manifest.open(dir)).walk();
    expect((await damaged('a'))?.prediction_id).toBe('p-a-again');
    expect((await damaged('dead'))?.prediction_id).toBe('p-dead');
  });

  it('never cuts a torn tail another process may still be appending to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const file = join(dir, MANIFEST_FILE);
    const whole = `${JSON.stringify(manifestEntry('a'))}\n`;
    const half = JSON.stringify(manifestEntry('b')).slice(0, 40);
    appendFileSync(file, whole + half);
    const manifest = await Manifest.open(dir);
    // Opening reads the whole lines and leaves the rest where it is.
    expect(await readFile(file, 'utf8')).toBe(whole + half);
    expect((await manifest.recorded()).map((e) => e.key)).toEqual(['a']);
    // The other writer finishes its line: it is read then.
    appendFileSync(file, `${JSON.stringify(manifestEntry('b')).slice(40)}\n`);
    expect(await manifest.get('b')).toBeDefined();
  });

  it('starts a fresh line after a torn one, so the next entry is not glued onto it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    appendFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifestEntry('torn')).slice(0, 30));
    const manifest = await Manifest.open(dir);
    expect(await manifest.record(manifestEntry('next'), null)).toBe(true);
    const reopened = await Manifest.open(dir);
    expect((await reopened.recorded()).map((e) => e.key)).toEqual(['next']);
  });

  it('undoes a short write (a full disk) and reports it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const first = await Manifest.open(dir);
    await first.record(manifestEntry('a'), null);
    const before = (await stat(join(dir, MANIFEST_FILE))).size;
    let calls = 0;
    // The record is created whole (by the store); the manifest line lands only in part.
    const shortOnFirst = {
      write: (fd: number, data: Buffer) =>
        ++calls === 1 ? writeSync(fd, data.subarray(0, 25)) : writeSync(fd, data),
    };
    const manifest = await Manifest.open(dir, shortOnFirst);
    await expect(manifest.record(manifestEntry('b'), null)).rejects.toThrow(ShortWrite);
    expect((await stat(join(dir, MANIFEST_FILE))).size).toBe(before);
    expect(await manifest.record(manifestEntry('c'), null)).toBe(true);
    const reopened = await Manifest.open(dir);
    expect((await reopened.recorded()).map((e) => e.key)).toEqual(['a', 'c']);
  });

  it('lets exactly one of two writers (two processes) record the same job and prediction', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    // Two workers, each with its own index, both finishing job x.
    const [one, two] = await Promise.all([Manifest.open(dir), Manifest.open(dir)]);
    const results = await Promise.all([
      one.record(manifestEntry('x'), null),
      two.record(manifestEntry('x'), null),
    ]);
    expect(results.sort()).toEqual([false, true]);
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
  });

  it('still knows a job whose writer died between its record and its manifest line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const dying = await Manifest.open(dir, {
      write: (fd, data) => {
        // The record is created (by the store); the process "dies" before the manifest line.
        if (data.toString().includes('"key":"y"')) throw new Error('killed');
        return writeSync(fd, data);
      },
    });
    await expect(dying.record(manifestEntry('y'), null)).rejects.toThrow('killed');
    const next = await Manifest.open(dir);
    expect(await next.get('y')).toMatchObject({ key: 'y' });
  });

  it('keeps only recent entries whole, and still finds every job another worker listed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const writer = await Manifest.open(dir);
    const reader = await Manifest.open(dir);
    const count = RECENT_ENTRIES + 200;
    // Listed by an older version: a line with no record, found by its line alone.
    appendFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifestEntry('line-only'))}\n`);
    for (let i = 0; i < count; i++) await writer.record(manifestEntry(`job-${i}`), null);
    const again = { ...manifestEntry('job-0'), prediction_id: 'p-job-0-2' };
    expect(await writer.record(again, 'p-job-0')).toBe(true);
    for (let i = count - 1; i > 0; i--) expect((await reader.get(`job-${i}`))?.key).toBe(`job-${i}`);
    // The latest line of a job regenerated after its file was lost, not its first.
    expect((await reader.get('job-0'))?.prediction_id).toBe('p-job-0-2');
    expect((await reader.get('line-only'))?.key).toBe('line-only');
    expect(await reader.get('never-recorded')).toBeUndefined();
  });

  it('falls back to the records when manifest.jsonl was replaced under a worker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const writer = await Manifest.open(dir);
    for (let i = 0; i < RECENT_ENTRIES + 1; i++) await writer.record(manifestEntry(`job-${i}`), null);
    const reader = await Manifest.open(dir);
    // A restore from a backup: other lines where the index says job-0's starts.
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    await writeFile(join(dir, MANIFEST_FILE), `${lines.reverse().join('\n')}\n`);
    expect((await reader.get('job-0'))?.key).toBe('job-0');
  });

  it('keeps the manifests of the few locations used last open, and each still knows its jobs', async () => {
    const manifests = new Manifests();
    const dirs = await Promise.all(Array.from({ length: 10 }, () => mkdtemp(join(tmpdir(), 'mf-manifest-'))));
    const first = await manifests.of(dirs[0]!);
    expect(await manifests.of(dirs[0]!)).toBe(first);
    for (const [i, dir] of dirs.entries())
      await (await manifests.of(dir)).record(manifestEntry(`job-${i}`), null);
    // The first location, used longest ago, was let go: opened again, it finds its job all the same.
    const reopened = await manifests.of(dirs[0]!);
    expect(reopened).not.toBe(first);
    expect((await reopened.get('job-0'))?.key).toBe('job-0');
    expect(await (await manifests.of(dirs[9]!)).get('job-0')).toBeUndefined();
  });

  it('in S3 mode, records each job once and finds its latest output through the chain of records', async () => {
    const location = uniqueS3Url('manifest');
    const client = s3Client();
    const open = () => Manifest.open(location, nodeWriter, openStore(location, client));
    const [one, two] = await Promise.all([open(), open()]);
    const results = await Promise.all([
      one.record(manifestEntry('x'), null),
      two.record(manifestEntry('x'), null),
    ]);
    expect(results.sort()).toEqual([false, true]);
    // Made again after its file was lost: the new record replaces the old one for every reader.
    const again = { ...manifestEntry('x'), prediction_id: 'p-x-2', finished_at: '2026-11-22T00:00:09.000Z' };
    expect(await one.record(again, 'p-x')).toBe(true);
    expect(await one.record(again, 'p-x')).toBe(false);
    const fresh = await open();
    expect((await fresh.get('x'))?.prediction_id).toBe('p-x-2');
    expect((await fresh.recorded()).map((e) => e.prediction_id)).toEqual(['p-x', 'p-x-2']);
    // Nothing lands in a local folder in S3 mode.
    expect(existsSync(join(process.cwd(), MANIFEST_FILE))).toBe(false);
  });
});
