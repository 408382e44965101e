/**
 * The file a succeeded prediction's output link serves, made on download from what the
 * prediction was asked (so a hundred thousand predictions cost no media memory):
 * - an image: a picture of its prompt, seeded by the prediction's id, so a retake (a new
 *   prediction of the same input) is a different picture, and the same link the same bytes;
 * - a video: its still (still.ts, else a picture of its own prompt) panning slowly, 8 frames a
 *   second for the asked duration, shown at the asked resolution; a still of another shape than
 *   an aspect ratio the input names is cut to it from the centre, as a crop would be.
 * A video is small and cheap to make: its first frame holds the picture, each frame after only
 * the pan (docs/benchmarks.md, "Measurements behind the code").
 */
import { MODELS } from '../../api/catalogue/index.ts';
import type { StoredPrediction } from '../predictions/prediction.ts';
import { aspectRatioOf, durationOf, fitRatio, type Size, videoSizeOf } from './dimensions.ts';
import { encodeH264 } from './h264.ts';
import { muxMp4 } from './mp4.ts';
import { type Picture, renderPicture } from './picture.ts';
import { renderPng } from './png.ts';
import { cropToRatio, findStill, pictureToRgb, type RgbImage, type StillSources } from './still.ts';
import { yuvFromRgb } from './yuv.ts';

/** Long side of generated images: enough to look at, cheap to make. */
export const IMAGE_LONG_SIDE = 512;
const FPS = 8;

function imageSizeOf(prediction: StoredPrediction): Size {
  return fitRatio(aspectRatioOf(prediction.label, prediction.input), IMAGE_LONG_SIDE);
}

export function pictureOf(prediction: StoredPrediction): Picture {
  return renderPicture(String(prediction.input.prompt), prediction.id, imageSizeOf(prediction));
}

export function imageOf(prediction: StoredPrediction): Buffer {
  return renderPng(String(prediction.input.prompt), prediction.id, imageSizeOf(prediction));
}

export function videoOf(prediction: StoredPrediction, sources: StillSources): Buffer {
  const field = MODELS[prediction.label].imageFields.find((name) => prediction.input[name] !== undefined);
  const found = field ? findStill(prediction.input[field], sources) : undefined;
  const still =
    found && prediction.input.aspect_ratio !== undefined
      ? cropToRatio(found, aspectRatioOf(prediction.label, prediction.input))
      : (found ?? pictureToRgb(pictureOf(prediction)));
  const asked = videoSizeOf(prediction.label, prediction.input);
  return renderMp4(
    still,
    Math.min(asked.width, asked.height),
    durationOf(prediction.label, prediction.input),
  );
}

/** A video of `still` panning for `seconds`, shown `lines` high (or wide, when portrait). */
export function renderMp4(still: RgbImage, lines: number, seconds: number): Buffer {
  const frame = yuvFromRgb(still.width, still.height, still.rgb);
  // The asked resolution's short side, at the still's shape (a square still stays square).
  const display =
    frame.width >= frame.height
      ? { width: 2 * Math.round((lines * frame.width) / frame.height / 2), height: lines }
      : { width: lines, height: 2 * Math.round((lines * frame.height) / frame.width / 2) };
  return muxMp4(encodeH264(frame, FPS * seconds), frame, display, 1000 / FPS);
}
