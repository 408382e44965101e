/**
 * How each clip format is encoded: what every player and social platform takes. MP4 is H.264 in
 * 4:2:0 with its index (moov) at the front (`+faststart`), so a browser starts playing before the
 * whole file has arrived; WebM is VP9 at libvpx's realtime settings, which encode a short clip
 * several times faster than its default good-quality passes at a little more size.
 */
import type { VideoFormat } from '../operations.ts';

/** `quality` when the spec names none: x264's own default CRF (23) falls at 85. */
const DEFAULT_QUALITY = 85;

/**
 * Quality 1–100 (higher is better, as for stills) as a constant-rate factor (lower is better):
 * 100 is near transparent on both codecs (CRF 18 for x264, 23 for VP9), 1 their worst.
 */
const crf = (quality: number, worst: number): number => Math.round(worst - quality * 0.33);

export function encoderArguments(format: VideoFormat, quality: number | null, withSound: boolean): string[] {
  const q = quality ?? DEFAULT_QUALITY;
  if (format === 'mp4') {
    return [
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', String(crf(q, 51)), '-pix_fmt', 'yuv420p'],
      ...(withSound ? ['-c:a', 'aac', '-b:a', '128k'] : []),
      ...['-movflags', '+faststart', '-f', 'mp4'],
    ];
  }
  return [
    ...['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1'],
    ...['-crf', String(crf(q, 56)), '-b:v', '0', '-pix_fmt', 'yuv420p'],
    ...(withSound ? ['-c:a', 'libopus', '-b:a', '96k'] : []),
    ...['-f', 'webm'],
  ];
}
