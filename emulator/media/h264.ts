/**
 * A tiny H.264 encoder (Constrained Baseline, CAVLC) for the emulator's videos: browsers must
 * play them, and ffmpeg is not there at run time. It does no transform coding at all:
 * - the first frame (IDR) is the still, exactly: a flat 16×16 macroblock whose neighbour above
 *   (or left) has the same colour is an Intra_16×16 block predicted from it with no residual
 *   (~10 bits); any other is I_PCM, its samples raw (384 bytes). The emulator's pictures are
 *   drawn on a 16-pixel grid so most of their macroblocks are flat.
 * - every later frame is a P frame moving the whole picture 2 pixels left (a slow pan, 2 px so
 *   the chroma vector is whole and nothing blurs): one motion vector for the first macroblock,
 *   the others inherit it by prediction, most as P_Skip. ~50 bytes a frame at any size.
 * The right edge repeats its last column as the picture moves (the decoder pads references so).
 */
import { BitWriter, nalUnit } from './bits.ts';
import type { YuvFrame } from './yuv.ts';

export interface H264Stream {
  readonly sps: Buffer;
  readonly pps: Buffer;
  /** One access unit per frame (one NAL unit each), without start codes. */
  readonly frames: Buffer[];
}

/** Quarter-pixel units: 2 pixels a frame. */
const PAN = 8;
const LOG2_MAX_FRAME_NUM = 16;
const I_PCM = 25;
const VERTICAL = 0;
const HORIZONTAL = 1;
const CHROMA_HORIZONTAL = 1;
const CHROMA_VERTICAL = 2;

export function encodeH264(frame: YuvFrame, count: number): H264Stream {
  const frames = [nalUnit(3, 5, idrSlice(frame))];
  for (let n = 1; n < count; n++) frames.push(nalUnit(2, 1, panSlice(frame, n)));
  return { sps: nalUnit(3, 7, sps(frame)), pps: nalUnit(3, 8, pps()), frames };
}

function sps(frame: YuvFrame): Buffer {
  const bits = new BitWriter()
    .u(8, 66) // profile_idc: Baseline
    .u(8, 0xc0) // constraint_set0 and set1: Constrained Baseline
    .u(8, 30) // level 3.0: up to 1620 macroblocks a frame (the emulator's are ≤ 1024)
    .ue(0) // seq_parameter_set_id
    .ue(LOG2_MAX_FRAME_NUM - 4)
    .ue(2) // pic_order_cnt_type 2: output order is decoding order
    .ue(1) // max_num_ref_frames
    .u(1, 0) // gaps_in_frame_num_value_allowed_flag
    .ue(frame.mbWidth - 1)
    .ue(frame.mbHeight - 1)
    .u(1, 1) // frame_mbs_only_flag
    .u(1, 1); // direct_8x8_inference_flag
  const cropRight = (frame.mbWidth * 16 - frame.width) / 2;
  const cropBottom = (frame.mbHeight * 16 - frame.height) / 2;
  if (cropRight || cropBottom) bits.u(1, 1).ue(0).ue(cropRight).ue(0).ue(cropBottom);
  else bits.u(1, 0);
  bits
    .u(1, 1) // vui_parameters_present_flag
    .u(1, 0) // aspect_ratio_info_present_flag
    .u(1, 0) // overscan_info_present_flag
    .u(1, 1) // video_signal_type_present_flag
    .u(3, 5) // video_format: unspecified
    .u(1, 0) // limited range
    .u(1, 1) // colour_description_present_flag
    .u(8, 6) // colour primaries, transfer, matrix: BT.601 (yuv.ts converts so)
    .u(8, 6)
    .u(8, 6)
    .u(1, 0) // chroma_loc_info_present_flag
    .u(1, 0) // timing_info_present_flag: the MP4 carries timing
    .u(1, 0) // nal_hrd_parameters_present_flag
    .u(1, 0) // vcl_hrd_parameters_present_flag
    .u(1, 0) // pic_struct_present_flag
    .u(1, 1) // bitstream_restriction_flag: no reordering, so a decoder shows each frame at once
    .u(1, 1) // motion_vectors_over_pic_boundaries_flag
    .ue(0)
    .ue(0)
    .ue(16)
    .ue(16)
    .ue(0) // max_num_reorder_frames
    .ue(1); // max_dec_frame_buffering
  return bits.trailing();
}

function pps(): Buffer {
  return new BitWriter()
    .ue(0) // pic_parameter_set_id
    .ue(0) // seq_parameter_set_id
    .u(1, 0) // entropy_coding_mode_flag: CAVLC
    .u(1, 0) // bottom_field_pic_order_in_frame_present_flag
    .ue(0) // num_slice_groups_minus1
    .ue(0) // num_ref_idx_l0_default_active_minus1
    .ue(0) // num_ref_idx_l1_default_active_minus1
    .u(1, 0) // weighted_pred_flag
    .u(2, 0) // weighted_bipred_idc
    .se(0) // pic_init_qp_minus26
    .se(0) // pic_init_qs_minus26
    .se(0) // chroma_qp_index_offset
    .u(1, 1) // deblocking_filter_control_present_flag: slices turn the filter off (exact copies)
    .u(1, 0) // constrained_intra_pred_flag
    .u(1, 0) // redundant_pic_cnt_present_flag
    .trailing();
}

function sliceHeader(sliceType: number, frameNum: number, idr: boolean): BitWriter {
  const bits = new BitWriter().ue(0).ue(sliceType).ue(0).u(LOG2_MAX_FRAME_NUM, frameNum);
  if (idr)
    bits.ue(0).u(1, 0).u(1, 0); // idr_pic_id; no_output_of_prior_pics, long_term_reference
  else bits.u(1, 0).u(1, 0).u(1, 0); // num_ref_idx override, list modification, adaptive marking
  return bits.se(0).ue(1); // slice_qp_delta; disable_deblocking_filter_idc = 1
}

function idrSlice(frame: YuvFrame): Buffer {
  const bits = sliceHeader(7, 0, true);
  const pcm: boolean[] = [];
  for (let my = 0; my < frame.mbHeight; my++) {
    for (let mx = 0; mx < frame.mbWidth; mx++) {
      const modes = flatModes(frame, mx, my);
      pcm.push(!modes);
      if (!modes) {
        bits.ue(I_PCM);
        while (!bits.aligned) bits.u(1, 0);
        bits.raw(samples(frame, mx, my));
        continue;
      }
      bits
        .ue(1 + modes.luma)
        .ue(modes.chroma)
        .se(0); // mb_type (no coded blocks), chroma mode, qp delta
      // The luma DC block is always coded for Intra_16×16: "no coefficients", whose code depends
      // on nC, the coefficient count of the neighbours above and left (16 for I_PCM, else 0).
      const counts = [
        mx > 0 ? pcm[pcm.length - 2] : undefined,
        my > 0 ? pcm[pcm.length - 1 - frame.mbWidth] : undefined,
      ]
        .filter((n) => n !== undefined)
        .map((isPcm) => (isPcm ? 16 : 0));
      const nC = counts.length === 2 ? (counts[0]! + counts[1]! + 1) >> 1 : (counts[0] ?? 0);
      if (nC < 2) bits.u(1, 1);
      else if (nC < 4) bits.u(2, 3);
      else if (nC < 8) bits.u(4, 15);
      else bits.u(6, 3);
    }
  }
  return bits.trailing();
}

/** Prediction modes that rebuild the macroblock exactly with no residual, or undefined. */
function flatModes(frame: YuvFrame, mx: number, my: number): { luma: number; chroma: number } | undefined {
  const stride = frame.mbWidth * 16;
  const flat = (plane: Uint8Array, w: number, size: number, x0: number, y0: number) => {
    const value = plane[y0 * w + x0]!;
    for (let y = y0; y < y0 + size; y++)
      for (let x = x0; x < x0 + size; x++) if (plane[y * w + x] !== value) return false;
    return true;
  };
  const x0 = mx * 16;
  const y0 = my * 16;
  const c = stride / 2;
  if (
    !flat(frame.y, stride, 16, x0, y0) ||
    !flat(frame.u, c, 8, x0 / 2, y0 / 2) ||
    !flat(frame.v, c, 8, x0 / 2, y0 / 2)
  ) {
    return undefined;
  }
  // The neighbour's edge row (or column) is what the prediction copies: it must be the value.
  /** `left`: the column left of the block, else the row above it. */
  const edge = (left: number, above: number) => {
    for (let i = 0; i < 16; i++) {
      const x = left ? x0 - 1 : x0 + i;
      const y = above ? y0 - 1 : y0 + i;
      if (frame.y[y * stride + x] !== frame.y[y0 * stride + x0]) return false;
      if (i < 8) {
        const cx = left ? x0 / 2 - 1 : x0 / 2 + i;
        const cy = above ? y0 / 2 - 1 : y0 / 2 + i;
        if (
          frame.u[cy * c + cx] !== frame.u[(y0 / 2) * c + x0 / 2] ||
          frame.v[cy * c + cx] !== frame.v[(y0 / 2) * c + x0 / 2]
        )
          return false;
      }
    }
    return true;
  };
  if (my > 0 && edge(0, 1)) return { luma: VERTICAL, chroma: CHROMA_VERTICAL };
  if (mx > 0 && edge(1, 0)) return { luma: HORIZONTAL, chroma: CHROMA_HORIZONTAL };
  return undefined;
}

/** An I_PCM macroblock's samples: 16×16 luma, then 8×8 Cb, then 8×8 Cr, row by row. */
const scratch = new Uint8Array(384);

function samples(frame: YuvFrame, mx: number, my: number): Uint8Array {
  const out = scratch;
  const stride = frame.mbWidth * 16;
  for (let row = 0; row < 16; row++)
    out.set(
      frame.y.subarray((my * 16 + row) * stride + mx * 16, (my * 16 + row) * stride + mx * 16 + 16),
      row * 16,
    );
  for (const [p, plane] of [frame.u, frame.v].entries()) {
    for (let row = 0; row < 8; row++) {
      const from = (my * 8 + row) * (stride / 2) + mx * 8;
      out.set(plane.subarray(from, from + 8), 256 + 64 * p + row * 8);
    }
  }
  return out;
}

/**
 * Every macroblock moves by (PAN, 0). The predicted vector is PAN everywhere but at the first
 * macroblock, so that one sends it. P_Skip would take a zero vector on the top row and left
 * column (a neighbour is missing there), so those are coded (P_L0_16×16, no residual).
 */
function panSlice(frame: YuvFrame, frameNum: number): Buffer {
  const bits = sliceHeader(5, frameNum % (1 << LOG2_MAX_FRAME_NUM), false);
  let skipped = 0;
  for (let my = 0; my < frame.mbHeight; my++) {
    for (let mx = 0; mx < frame.mbWidth; mx++) {
      if (mx > 0 && my > 0) {
        skipped++;
        continue;
      }
      bits
        .ue(skipped)
        .ue(0)
        .se(mx === 0 && my === 0 ? PAN : 0)
        .se(0)
        .ue(0); // mb_type P_L0_16x16, mvd, cbp 0
      skipped = 0;
    }
  }
  if (skipped) bits.ue(skipped);
  return bits.trailing();
}
