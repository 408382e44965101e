/**
 * Where an image-to-video prediction's first frame comes from (emulator/media/still.ts): the
 * emulator's own outputs exactly, uploaded or inline PNGs of any kind fast-png reads (scaled to
 * the emulator's 512-pixel long side), and nothing for what the emulator cannot read.
 */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { renderPicture } from '../../emulator/media/picture.ts';
import { renderPng } from '../../emulator/media/png.ts';
import { findStill, pictureToRgb, type RgbImage, type StillSources } from '../../emulator/media/still.ts';

/** Size and pixels equal (compared as bytes: a deep equal of 170 k numbers takes seconds). */
function same(a: RgbImage | undefined, b: RgbImage): boolean {
  return (
    a !== undefined &&
    a.width === b.width &&
    a.height === b.height &&
    Buffer.from(a.rgb).equals(Buffer.from(b.rgb))
  );
}

const size = { width: 320, height: 180 };
const picture = renderPicture('red kite over a green hill', 4, size);
const sources: StillSources = {
  picture: (id) => (id === 4 ? picture : undefined),
  file: (id) => (id === 'file_1' ? renderPng('red kite over a green hill', 4, size) : undefined),
};

describe('findStill', () => {
  it('draws an output link of this emulator again, exactly as it was served', () => {
    expect(same(findStill('http://127.0.0.1:9/cdn/outputs/4.png', sources), pictureToRgb(picture))).toBe(
      true,
    );
    expect(findStill('http://127.0.0.1:9/cdn/outputs/5.png', sources)).toBeUndefined();
  });

  it('decodes an uploaded file and a data URI of the same PNG to the same pixels', () => {
    const expected = pictureToRgb(picture);
    expect(same(findStill('http://127.0.0.1:9/cdn/files/file_1/kite.png', sources), expected)).toBe(true);
    const uri = `data:image/png;base64,${renderPng('red kite over a green hill', 4, size).toString('base64')}`;
    expect(same(findStill(uri, sources), expected)).toBe(true);
    expect(same(findStill(uri, sources), pictureToRgb(renderPicture('red kite', 4, size)))).toBe(false);
  });

  it('reads 16-bit RGBA (alpha over black) and scales a large picture to a 512-pixel long side', () => {
    const data = new Uint16Array(1024 * 64 * 4);
    for (let i = 0; i < data.length; i += 4) data.set([65535, 32768, 0, i < data.length / 2 ? 65535 : 0], i);
    const png = Buffer.from(encode({ width: 1024, height: 64, data, depth: 16, channels: 4 }));
    const still = findStill(png.toString('base64'), sources)!;
    expect([still.width, still.height]).toEqual([512, 32]);
    expect([...still.rgb.subarray(0, 3)]).toEqual([255, 128, 0]);
    expect([...still.rgb.subarray(still.rgb.length - 3)]).toEqual([0, 0, 0]);
  });

  it('gives nothing for what it cannot read: a JPEG, a link elsewhere, a missing file', () => {
    expect(findStill('data:image/jpeg;base64,/9j/4AAQSkZJRg==', sources)).toBeUndefined();
    expect(findStill('https://example.com/start.png', sources)).toBeUndefined();
    expect(findStill('http://127.0.0.1:9/cdn/files/file_9/x.png', sources)).toBeUndefined();
    expect(findStill(42, sources)).toBeUndefined();
  });
});
