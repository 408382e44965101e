/**
 * Micro-measure of what signing costs per file (docs/benchmarks.md, "Signing outputs"): the worker
 * CPU of XMP + C2PA signing for 50 provider-signed 512×288 stills and 50 provider-signed 5 s clips
 * (each naming its still), and the emulator's CPU to sign what it serves. Uses the local test
 * certificates (`npm run setup`). Run: `npx tsx scripts/measure-signing.ts`.
 */
import { Readable } from 'node:stream';
import { currentSigningKey } from '../activities/provenance/credentials/of-output.ts';
import { c2pa } from '../activities/provenance/credentials/sdk.ts';
import { whole } from '../activities/provenance/credentials/whole.ts';
import { withProvenance } from '../activities/provenance/with-provenance.ts';
import type { Provenance } from '../activities/provenance/xmp.ts';
import { imageOf, renderMp4 } from '../emulator/media/outputs.ts';
import { providerSignature } from '../emulator/signing/provider-signature.ts';

const FILES = 50;
const key = currentSigningKey();
if (!key) throw new Error('no signing key: run `npm run setup` first');
const provenance: Provenance = {
  model: 'I1',
  prompt: 'Acme sneaker on marble, studio light',
  campaign: 'measure',
  planDigest: '0123456789abcdef0123456789abcdef',
  jobKey: 'hero-sneaker',
  predictionId: 'p1',
  parentFile: null,
  review: null,
  createdAt: '2026-12-01T00:00:00.000Z',
};

/**
 * Milliseconds of CPU per file for `work` done FILES times: the process's (its signing threads
 * included), and the main thread's alone, which is what holds a worker's event loop.
 */
async function cpuPerFile(work: (i: number) => Promise<unknown>): Promise<string> {
  const before = process.cpuUsage();
  const mainBefore = process.threadCpuUsage();
  for (let i = 0; i < FILES; i++) await work(i);
  const used = process.cpuUsage(before);
  const main = process.threadCpuUsage(mainBefore);
  const perFile = (usage: NodeJS.CpuUsage) => ((usage.user + usage.system) / 1000 / FILES).toFixed(1);
  return `${perFile(used)} ms CPU per file (${perFile(main)} on the main thread)`;
}

await c2pa(); // the SDK's load is once per process, not per file
const emulator = providerSignature(true);
const prediction = (id: number, label: string) =>
  ({ id, label, input: { prompt: `a sneaker ${id}`, aspect_ratio: '16:9' } }) as never;
const rendered = Array.from({ length: FILES }, (_, i) => imageOf(prediction(i, 'I1')));
const served: Buffer[] = [];
const emulatorMs = await cpuPerFile(async (i) =>
  served.push(await emulator.served(prediction(i, 'I1'), () => rendered[i]!, 'image/png')),
);
const sign = (bytes: Buffer, file: string, ingredients: Parameters<typeof withProvenance>[2] = null) =>
  whole(withProvenance(provenance, file, ingredients).transform(Readable.from([bytes])));
// The signing threads start, and load the SDK, on the first file: once per process too.
await sign(served[0]!, 'hero/warm.png', { key, take: 0, ingredients: async () => [] });
const stills: Buffer[] = [];
const stillMs = await cpuPerFile(async (i) =>
  stills.push(await sign(served[i]!, 'hero/sneaker.png', { key, take: 0, ingredients: async () => [] })),
);
const mp4 = renderMp4({ width: 512, height: 288, rgb: Buffer.alloc(512 * 288 * 3, 90) }, 288, 5);
const clips: Buffer[] = [];
for (let i = 0; i < FILES; i++)
  clips.push(await emulator.served(prediction(10_000 + i, 'V4'), () => mp4, 'video/mp4'));
const input = (i: number) => [
  { bytes: stills[i]!, format: 'image/png', title: 'sneaker.png', relationship: 'inputTo' as const },
];
const clipMs = await cpuPerFile((i) =>
  sign(clips[i]!, 'teaser/sneaker.mp4', { key, take: 0, ingredients: async () => input(i) }),
);
console.log(`emulator, signing a still it serves: ${emulatorMs}`);
console.log(`worker, XMP + signing a provider-signed still: ${stillMs} (${stills[0]!.length} bytes)`);
console.log(`worker, signing a provider-signed 5 s clip naming its still: ${clipMs}`);
