import sharp from 'sharp';

/**
 * The versions that decide a still derivative's bytes, for its job's key: sharp, and the libvips
 * it runs (which pins the codecs, Pango and the font rasteriser it was built with).
 */
export function imageToolVersion(): string {
  return `sharp ${sharp.versions.sharp} libvips ${sharp.versions.vips}`;
}
