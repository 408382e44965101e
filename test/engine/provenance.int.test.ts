/**
 * Outputs carry their provenance, read back by a real reader (Debian's exiftool,
 * scripts/install-test-tools.sh): a still has XMP embedded with its pixels untouched, a video has
 * an .xmp sidecar naming the still it was made from and who approved that still; the manifest's
 * sha256 and size are of the files as delivered, and it lists each sidecar.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TRAINED_ALGORITHMIC_MEDIA } from '../../activities/provenance/xmp.ts';
import { writeDecisions } from '../../records/decisions.ts';
import { createAndFinish } from './activity-env.ts';
import { CHAINED_SPEC, harness } from './harness.ts';

const run = promisify(execFile);

/** exiftool's reading of a file: raw values (-n), grouped by XMP namespace (-G1). */
async function exiftool(file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run('exiftool', ['-j', '-n', '-G1', '-a', file]);
  return (JSON.parse(stdout) as Record<string, unknown>[])[0]!;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('provenance of outputs', () => {
  it('embeds XMP in a still and writes a sidecar beside its video, both read by exiftool', async () => {
    const h = await harness();
    // The video is named from a template: its sidecar sits beside it, in the folder it makes.
    const plan = await h.plan(
      CHAINED_SPEC.replace('aspect_ratio: "16:9" }', 'aspect_ratio: "16:9" }\n    review: true').replace(
        'mode: "{{mode}}" }',
        'mode: "{{mode}}" }\n    output: { name: "{{product}}/{{mode}}" }',
      ),
    );
    const [still, video] = [plan.jobs[0]!, plan.jobs[1]!];
    expect(video.file).toBe('sneaker/standard');
    expect([still.step, video.step, video.parent]).toEqual(['hero', 'teaser', still.key]);

    expect((await createAndFinish(h, plan, 0)).finished?.outcome.kind).toBe('succeeded');
    await writeDecisions(plan.outputDir, plan.campaign, [
      {
        key: still.key,
        action: 'approve',
        by: 'Ana',
        take: 0,
        at: '2026-11-27T06:00:00.000Z',
        source: 'reviewer',
      },
    ]);
    expect((await createAndFinish(h, plan, 1)).finished?.outcome.kind).toBe('succeeded');
    const [stillEntry, videoEntry] = (await h.manifest(plan)) as Record<string, string>[];

    // The still: XMP inside, found by exiftool; nothing else of the file changed.
    const stillFile = join(plan.outputDir, stillEntry!.file!);
    const delivered = await readFile(stillFile);
    expect(stillEntry).toMatchObject({ sha256: sha256(delivered), bytes: delivered.length });
    expect(stillEntry!.xmp).toBeUndefined();
    const tags = await exiftool(stillFile);
    expect(tags).toMatchObject({
      'XMP-iptcExt:DigitalSourceType': TRAINED_ALGORITHMIC_MEDIA,
      'XMP-xmp:CreatorTool': 'mediaflow',
      'XMP-mediaflow:Campaign': plan.campaign,
      'XMP-mediaflow:JobKey': still.key,
    });
    // exiftool's JSON gives a numeric-looking id as a number.
    expect(String(tags['XMP-mediaflow:PredictionID'])).toBe(stillEntry!.prediction_id);
    expect(tags['XMP-mediaflow:PlanDigest']).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(tags)).toContain('Acme sneaker on marble');
    expect(JSON.stringify(tags)).toContain('I1');
    // exiftool's own check of the file's structure (chunk CRCs, order): no warning at all.
    expect((await run('exiftool', ['-validate', '-warning', '-a', '-s3', stillFile])).stdout.trim()).toBe(
      'OK',
    );
    // The service's bytes are all there, in order: only the XMP chunk was added.
    const original = Buffer.from(await (await fetch(stillEntry!.output_url!)).arrayBuffer());
    expect(delivered.length).toBeGreaterThan(original.length);
    expect(withoutXmpChunk(delivered)).toEqual(original);

    // The video: stored as the service sent it, its provenance in the sidecar the manifest lists.
    const videoFile = join(plan.outputDir, videoEntry!.file!);
    const videoBytes = await readFile(videoFile);
    expect(videoBytes).toEqual(Buffer.from(await (await fetch(videoEntry!.output_url!)).arrayBuffer()));
    expect(videoEntry).toMatchObject({
      file: 'teaser/sneaker/standard.mp4',
      sha256: sha256(videoBytes),
      xmp: 'teaser/sneaker/standard.xmp',
    });
    const sidecar = join(plan.outputDir, videoEntry!.xmp!);
    expect(videoEntry!.xmp_sha256).toBe(sha256(await readFile(sidecar)));
    const sidecarTags = await exiftool(sidecar);
    expect(sidecarTags).toMatchObject({
      'XMP-iptcExt:DigitalSourceType': TRAINED_ALGORITHMIC_MEDIA,
      'XMP-mediaflow:ParentFile': stillEntry!.file,
      'XMP-mediaflow:ReviewDecision': 'approve',
      'XMP-mediaflow:ReviewOf': 'parent',
      'XMP-mediaflow:ReviewedBy': 'Ana',
      // exiftool shows a date in its own form.
      'XMP-mediaflow:ReviewedAt': '2026:11:27 06:00:00.000Z',
    });
    expect(JSON.stringify(sidecarTags)).toContain('Slow orbit around the sneaker');
  });
});

/** The PNG with its `iTXt` XML:com.adobe.xmp chunk cut out. */
function withoutXmpChunk(png: Buffer): Buffer {
  let offset = 8;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (
      png.toString('latin1', offset + 4, offset + 8) === 'iTXt' &&
      png.toString('latin1', offset + 8, offset + 25) === 'XML:com.adobe.xmp'
    )
      return Buffer.concat([png.subarray(0, offset), png.subarray(end)]);
    offset = end;
  }
  return png;
}
