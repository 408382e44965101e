/**
 * A product feed run to channel deliverables as a user types it: `mediaflow run` makes the stills
 * and clips at the service, then their derivatives on the worker (square JPEGs with the headline,
 * WebP stories, 9:16 reels, posters). Other readers confirm what was made (Pillow for the stills,
 * ffprobe for the reels, exiftool for the XMP, c2pa-python for the signed credentials); an
 * unchanged re-run derives nothing, and
 * editing one row's headline remakes only what shows that headline.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MEDIAFLOW_ASSERTION } from '../../activities/provenance/credentials/manifest.ts';
import { COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA } from '../../activities/provenance/xmp.ts';
import { startEmulator } from '../../emulator/index.ts';
import { DerivativeRecord } from '../../records/derivatives.ts';
import { activeManifest, assertionOf, readWithC2paPython } from '../helpers/c2pa-python.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { cleanEnv, mediaflow, tempDir, writeSpec } from './helpers.ts';

const exec = promisify(execFile);
const PILLOW = join(process.cwd(), '.tools/pillow-venv/bin/python');
const FIXTURES = fileURLToPath(new URL('../fixtures/c2pa/', import.meta.url));

const PRODUCTS = `sku,name,colour,headline
TEE-01,Classic tee,mint,"Soft, breathable, everyday"
CAP-02,Casquette,lemon,Été à Paris
BAG-03,バッグ,navy,東京の夏
`;

const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 5 }
output: { dir: out }
data:
  products: products.csv
steps:
  - id: still
    model: I4
    for_each: products
    input: { prompt: "{{row.name}} in {{row.colour}}", aspect_ratio: "16:9" }
    output: { name: "{{row.sku}}" }
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit around the {{row.name}}" }
    output: { name: "{{row.sku}}" }
  - id: square
    from: still
    derive:
      - crop: { aspect_ratio: "1:1", focus: attention }
      - resize: { width: 320 }
      - text: { value: "{{row.headline}}", position: bottom, size: 28, box: "#00000088" }
      - format: { type: jpeg, quality: 85, max_bytes: 60kb }
  - id: story
    from: still
    derive:
      - resize: { width: 180, height: 320, fit: pad }
      - format: { type: webp }
  - id: reel
    from: clip
    derive:
      - trim: { start: 0, duration: 2 }
      - resize: { width: 180, height: 320, fit: pad }
      - text: { value: "{{row.headline}}", position: bottom, size: 20 }
      - format: { type: mp4 }
  - id: poster
    from: clip
    derive: [{ frame: { at: 1 } }, { format: { type: jpeg } }]
  - id: thumb
    from: still
    derive: [{ preset: youtube-thumbnail }, { format: { type: jpeg, max_bytes: 300 } }]
`;

/** Every derivative record of the campaign's folder, by key. */
async function derivativeRecords(out: string): Promise<Map<string, DerivativeRecord>> {
  const folder = join(out, '.mediaflow/derivatives');
  const records = new Map<string, DerivativeRecord>();
  for (const name of await readdir(folder)) {
    const record = DerivativeRecord.parse(JSON.parse(await readFile(join(folder, name), 'utf8')));
    records.set(record.key, record);
  }
  return records;
}

/** Pillow's reading of a picture: its format and size. */
async function pillow(file: string): Promise<{ format: string; width: number; height: number }> {
  const script =
    'import sys,json;from PIL import Image;i=Image.open(sys.argv[1]);print(json.dumps([i.format,*i.size]))';
  const { stdout } = await exec(PILLOW, ['-c', script, file]).catch((error: unknown) => {
    throw new Error(`Pillow could not read ${file} (run npm run setup:all for .tools/pillow-venv): ${error}`);
  });
  const [format, width, height] = JSON.parse(stdout) as [string, number, number];
  return { format, width, height };
}

async function ffprobe(file: string) {
  const { stdout } = await exec('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_streams',
    '-show_format',
    file,
  ]);
  const report = JSON.parse(stdout) as {
    streams: { codec_type: string; codec_name: string; pix_fmt?: string; width?: number; height?: number }[];
    format: { duration: string };
  };
  const video = report.streams.find((stream) => stream.codec_type === 'video')!;
  return { ...video, duration: Number(report.format.duration) };
}

describe('a product feed to channel deliverables', () => {
  it('derives crops, stories, reels and posters, then only what an edit changes', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const dir = await tempDir();
    const campaign = uniqueTaskQueue('derive');
    await writeSpec(dir, SPEC.replace('CAMPAIGN', campaign));
    await writeFile(join(dir, 'products.csv'), PRODUCTS);
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
      // Signed with the test fixtures' key: the campaign's temporary state has none of its own.
      MEDIAFLOW_C2PA_CERT: join(FIXTURES, 'es256.pem'),
      MEDIAFLOW_C2PA_KEY: join(FIXTURES, 'es256.key'),
    });
    const run = () => mediaflow(['run', 'spec.yaml', '--worker'], { cwd: dir, env });
    const out = join(dir, 'out');

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(emulator.ledger().predictionsCreated).toBe(6);
    const made = await derivativeRecords(out);
    expect([...made.values()].map((record) => `${record.step}/${record.state}`).sort()).toEqual([
      ...['poster', 'reel', 'square', 'story'].flatMap((step) => Array(3).fill(`${step}/made`)),
      ...Array(3).fill('thumb/failed'),
    ]);
    // A thumbnail that cannot fit 300 bytes is named, with the operation and the best it reached;
    // the stills it was to be made from are paid and delivered all the same.
    const thumb = [...made.values()].find((record) => record.step === 'thumb');
    expect(thumb?.state === 'failed' && thumb.message).toMatch(
      /^derive_failed: operation 2 \(format\): .*bytes/,
    );
    const derived = 'derived: square 3/3, story 3/3, reel 3/3, poster 3/3, thumb 0/3 (3 failed) files made';
    expect(first.stdout).toContain(derived);
    // `status` tells the same from the records, in words and in JSON.
    const status = await mediaflow(['status', campaign], { cwd: dir, env });
    expect(status.stdout).toContain(derived);
    const json = await mediaflow(['status', campaign, '--json'], { cwd: dir, env });
    expect(JSON.parse(json.stdout).derive_steps).toContainEqual({
      id: 'thumb',
      from: 'still',
      files: 3,
      made: 0,
      failed: 3,
    });
    const fileOf = (step: string, sku: string) => {
      const record = [...made.values()].find((r) => r.step === step && r.parent.file.includes(sku));
      if (record?.state !== 'made') throw new Error(`no ${step} made for ${sku}`);
      return record;
    };

    const square = fileOf('square', 'CAP-02');
    expect(square.file).toBe('square/CAP-02.jpg');
    expect(await pillow(join(out, square.file))).toEqual({ format: 'JPEG', width: 320, height: 320 });
    expect(square.bytes).toBeLessThanOrEqual(60_000);
    expect(await pillow(join(out, fileOf('story', 'BAG-03').file))).toEqual({
      format: 'WEBP',
      width: 180,
      height: 320,
    });
    const reel = await ffprobe(join(out, fileOf('reel', 'BAG-03').file));
    expect(reel).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p', width: 180, height: 320 });
    expect(reel.duration).toBeGreaterThan(1.8);
    expect(reel.duration).toBeLessThan(2.2);
    const poster = await pillow(join(out, fileOf('poster', 'TEE-01').file));
    expect(poster.format).toBe('JPEG');

    // The square's provenance, read by exiftool from its sidecar: an edit of the still, and what was done.
    const xmp = fileOf('square', 'CAP-02').xmp!;
    const { stdout } = await exec('exiftool', ['-j', '-G1', '-n', join(out, xmp)]);
    const tags = (JSON.parse(stdout) as Record<string, unknown>[])[0]!;
    expect(tags['XMP-iptcExt:DigitalSourceType']).toBe(COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA);
    expect(tags['XMP-mediaflow:ParentFile']).toBe('still/CAP-02.png');
    expect(tags['XMP-mediaflow:Operations']).toContain('text "Été à Paris" bottom');

    // Signed, read by the CAI's Python SDK: opened from the still (its parent ingredient, whose own
    // manifest, the emulator's inside it, stays), each operation an action on generated media.
    for (const [step, actions] of [
      ['square', ['c2pa.opened', 'c2pa.cropped', 'c2pa.resized', 'c2pa.edited', 'c2pa.transcoded']],
      ['reel', ['c2pa.opened', 'c2pa.edited', 'c2pa.resized', 'c2pa.edited', 'c2pa.transcoded']],
    ] as const) {
      const record = fileOf(step, 'CAP-02');
      expect(record.c2pa).toBe(true);
      const reading = await readWithC2paPython(join(out, record.file));
      expect(reading.validation_state, `${record.file} reads valid`).toBe('Valid');
      const manifest = activeManifest(reading);
      const done = assertionOf(manifest, 'c2pa.actions.v2') as {
        actions: { action: string; digitalSourceType?: string }[];
      };
      expect(done.actions.map((action) => action.action)).toEqual(actions);
      expect(
        done.actions.slice(1).every((a) => a.digitalSourceType === COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA),
      ).toBe(true);
      expect(assertionOf(manifest, MEDIAFLOW_ASSERTION)).toMatchObject({
        derived: { step, key: record.key },
      });
      const parent = manifest.ingredients?.find((ingredient) => ingredient.relationship === 'parentOf');
      expect(parent?.title).toBe(record.parent.file.split('/').pop());
      expect(reading.manifests[parent!.active_manifest!]).toBeDefined();
    }

    // Unchanged: nothing is paid, nothing derived, every record as it was.
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('derived from recorded outputs');
    expect(emulator.ledger().predictionsCreated).toBe(6);
    const madeOnly = (records: Map<string, DerivativeRecord>) =>
      [...records.values()].filter((record) => record.state === 'made');
    expect(madeOnly(await derivativeRecords(out))).toEqual(madeOnly(made));

    // One row's headline edited: its square and its reel show it; its story and poster do not.
    await writeFile(join(dir, 'products.csv'), PRODUCTS.replace('Été à Paris', 'Hiver à Lyon'));
    // And one derivative deleted: made again from its recorded parent.
    await rm(join(out, fileOf('story', 'TEE-01').file));
    const edited = await run();
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stderr).toContain('derived from recorded outputs: 3 files');
    expect(emulator.ledger().predictionsCreated).toBe(6);
    const after = await derivativeRecords(out);
    const remade = madeOnly(after).filter((record) => made.get(record.key)?.at !== record.at);
    expect(remade.map((record) => `${record.step} ${record.parent.file}`).sort()).toEqual([
      'reel clip/CAP-02.mp4',
      'square still/CAP-02.png',
      'story still/TEE-01.png',
    ]);
  }, 180_000);
});
