/**
 * `npm run bench -- derive-2k [--stills N]`: 2,000 stills, each derived into three channel files
 * with a headline (a 1080×1080 feed post, a 1080×1920 story, a 1200×628 banner, JPEG), by a plain
 * script (sharp and p-limit at the machine's cores) and by mediaflow's derive stage as a worker runs
 * it after each output is saved (activities/derive/: records read and written, files through the
 * store, XMP sidecars, a C2PA signature when a key is set), in one invocation, on the same stills,
 * each side in a process of its own (bench/derive-phase.ts) so that each peak is its own.
 * The campaign around it (creates, waits, downloads) is the throughput benchmarks' business.
 * Goals (issue 40): mediaflow within 1.15 × the script; the process's peak RSS within 400 MB.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { z } from 'zod';
import type { Operation } from '../derive/operations.ts';
import { WORKER_ENV, WORKER_NODE_FLAGS } from '../worker/create-worker.ts';
import { CHANNELS, FONT, HEADLINE } from './derive-script.ts';
import { type Parent, parentOf } from './lib/derive-stage.ts';
import { inOwnProcess } from './lib/own-process.ts';
import { round, type Verdict, verdict } from './lib/report.ts';

const Made = z.object({ made: z.number(), signed: z.boolean() });
const PHASE = new URL('./derive-phase.ts', import.meta.url);

/** A 1024×576 still of its own colour, as the service would deliver one. */
async function still(index: number): Promise<Buffer> {
  const hue = (index * 37) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="576"><rect width="1024" height="576" fill="hsl(${hue},60%,60%)"/><circle cx="${300 + (index % 400)}" cy="288" r="160" fill="hsl(${(hue + 180) % 360},50%,40%)"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function operations(channel: (typeof CHANNELS)[number], font: { path: string; sha256: string }): Operation[] {
  return [
    { op: 'resize', width: channel.width, height: channel.height, fit: 'cover', background: '#000000' },
    {
      op: 'text',
      value: HEADLINE,
      position: 'bottom',
      size: 56,
      colour: '#ffffff',
      box: '#00000088',
      font,
      margin: 32,
    },
    { op: 'format', type: 'jpeg', quality: 85, maxBytes: null },
  ];
}

export async function measureDerive(stillCount = 2_000) {
  const cores = availableParallelism();
  const root = await mkdtemp(join(tmpdir(), 'mediaflow-bench-derive-'));
  try {
    const fontBytes = await readFile(FONT);
    const font = { path: FONT, sha256: createHash('sha256').update(fontBytes).digest('hex') };
    const folder = join(root, 'campaign');
    await mkdir(join(folder, 'still'), { recursive: true });
    const files: string[] = [];
    const parents: Parent[] = [];
    const make = pLimit(cores);
    await Promise.all(
      Array.from({ length: stillCount }, (_, index) =>
        make(async () => {
          const bytes = await still(index);
          const file = `still/s${index}.png`;
          await writeFile(join(folder, file), bytes);
          files[index] = join(folder, file);
          const derivations = CHANNELS.map((channel) => ({
            step: channel.step,
            operations: operations(channel, font),
          }));
          parents[index] = parentOf(index, { step: 'still', model: 'I1', file, bytes }, derivations);
        }),
      ),
    );
    const scriptOut = join(root, 'script');
    await mkdir(scriptOut);
    const input = join(root, 'phase-input.json');
    await writeFile(input, JSON.stringify({ folder, files, scriptOut, cores, parents }));
    const script = await inOwnProcess(PHASE, ['script', input]);
    // mediaflow's side as a worker runs it (the Dockerfile's, compose's and the bench stack's flags
    // and malloc arenas); the script as a team would run theirs, with Node's defaults.
    const mediaflow = await inOwnProcess(PHASE, ['mediaflow', input], {
      nodeFlags: WORKER_NODE_FLAGS,
      env: WORKER_ENV,
    });
    const { made, signed } = Made.parse(mediaflow.value);
    const overScript = round(mediaflow.wallS / script.wallS, 3);
    const verdicts: Verdict[] = [
      verdict('mediaflow’s derive stage within 1.15 × a plain sharp script', overScript, 1.15, '×'),
      verdict('peak RSS of the process within 400 MB', mediaflow.peakMb, 400, ' MB'),
    ];
    return {
      stills: stillCount,
      files: stillCount * CHANNELS.length,
      cores,
      script: { wallS: script.wallS, cpuS: script.cpuS, peakMb: script.peakMb },
      mediaflow: { wallS: mediaflow.wallS, cpuS: mediaflow.cpuS, peakMb: mediaflow.peakMb, made, signed },
      overScript,
      verdicts,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
