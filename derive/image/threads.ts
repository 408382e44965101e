/**
 * libvips' threads per image. sharp gives each image as many as the machine has cores; the worker
 * already makes several derivatives at once (MEDIAFLOW_DERIVE_CONCURRENCY), so each gets its share
 * instead, and the cores are never oversubscribed under the campaign's own work.
 */
import sharp from 'sharp';

export function useImageThreads(threads: number): void {
  if (sharp.concurrency() !== threads) sharp.concurrency(threads);
}
