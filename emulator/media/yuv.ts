/**
 * RGB to the 4:2:0 planes an H.264 frame is made of (BT.601, limited range: what the SPS's
 * colour description announces), padded to whole 16×16 macroblocks by repeating the last
 * column and row. The visible size is made even, as 4:2:0 cropping counts in pairs of pixels.
 */
export interface YuvFrame {
  /** Visible size (even). */
  readonly width: number;
  readonly height: number;
  /** Size in macroblocks; the planes' strides are 16× and 8× mbWidth. */
  readonly mbWidth: number;
  readonly mbHeight: number;
  readonly y: Uint8Array;
  readonly u: Uint8Array;
  readonly v: Uint8Array;
}

/** `rgb`: three bytes a pixel, `width`×`height`, row by row. */
export function yuvFromRgb(width: number, height: number, rgb: Uint8Array): YuvFrame {
  const visibleW = Math.max(2, Math.min(width, width & ~1));
  const visibleH = Math.max(2, Math.min(height, height & ~1));
  const mbWidth = Math.ceil(visibleW / 16);
  const mbHeight = Math.ceil(visibleH / 16);
  const stride = mbWidth * 16;
  const rows = mbHeight * 16;
  const y = new Uint8Array(stride * rows);
  const u = new Uint8Array((stride / 2) * (rows / 2));
  const v = new Uint8Array(u.length);
  // Source column of each padded column, so the inner loops do no clamping.
  const columns = Int32Array.from({ length: stride }, (_, x) => 3 * Math.min(x, visibleW - 1, width - 1));
  for (let py = 0; py < rows; py += 2) {
    const top = Math.min(py, visibleH - 1, height - 1) * width * 3;
    const bottom = Math.min(py + 1, visibleH - 1, height - 1) * width * 3;
    for (let px = 0; px < stride; px += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < 4; k++) {
        const i = (k < 2 ? top : bottom) + columns[px + (k & 1)]!;
        const R = rgb[i]!;
        const G = rgb[i + 1]!;
        const B = rgb[i + 2]!;
        y[(py + (k >> 1)) * stride + px + (k & 1)] =
          (16.5 + (65.481 * R + 128.553 * G + 24.966 * B) / 255) | 0;
        r += R;
        g += G;
        b += B;
      }
      const c = (py / 2) * (stride / 2) + px / 2;
      u[c] = (128.5 + (-37.797 * r - 74.203 * g + 112 * b) / 1020) | 0;
      v[c] = (128.5 + (112 * r - 93.786 * g - 18.214 * b) / 1020) | 0;
    }
  }
  return { width: visibleW, height: visibleH, mbWidth, mbHeight, y, u, v };
}
