/**
 * How long the emulator takes to make one output and how big it is (emulator/media): run with
 * `npx tsx scripts/media-timing.ts`. Every emulated prediction's file is made on download, so
 * these are per-download costs; the numbers are quoted in emulator/media's comments.
 */
import { renderMp4 } from '../emulator/media/outputs.ts';
import { renderPicture } from '../emulator/media/picture.ts';
import { renderPng } from '../emulator/media/png.ts';
import { pictureToRgb } from '../emulator/media/still.ts';

const SIZES = [
  { width: 512, height: 512 },
  { width: 512, height: 288 },
  { width: 288, height: 512 },
];

/** Wall and CPU time per output: on a loaded machine the CPU time is the steadier figure. */
function measure(label: string, runs: number, make: (i: number) => Buffer): void {
  for (let i = 0; i < 10; i++) make(i); // warm up the JIT
  let bytes = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < runs; i++) bytes += make(i).length;
  const used = process.cpuUsage(cpu);
  const wall = (performance.now() - start) / runs;
  const cpuMs = (used.user + used.system) / 1000 / runs;
  console.log(
    `${label}: ${wall.toFixed(2)} ms wall, ${cpuMs.toFixed(2)} ms CPU, ${Math.round(bytes / runs)} bytes`,
  );
}

for (const size of SIZES) {
  const prompt = 'Acme sneaker on a navy background, studio light';
  measure(`png ${size.width}x${size.height}`, 200, (i) => renderPng(prompt, i, size));
  measure(`mp4 5 s from a ${size.width}x${size.height} still`, 30, (i) =>
    renderMp4(pictureToRgb(renderPicture(prompt, i, size)), 720, 5),
  );
}
