/**
 * A bit writer for H.264 syntax (ITU-T H.264 §7.2): fixed-width fields, Exp-Golomb codes, the
 * RBSP trailing bits, and the emulation prevention that turns an RBSP into a NAL unit's payload.
 */
export class BitWriter {
  private buffer = new Uint8Array(1024);
  private length = 0;
  /** Bits not yet a whole byte, and how many. */
  private current = 0;
  private filled = 0;

  /** `count` bits of `value`, most significant first (count ≤ 32). */
  u(count: number, value: number): this {
    while (count > 0) {
      const take = Math.min(count, 8 - this.filled);
      count -= take;
      this.current = (this.current << take) | ((value >>> count) & ((1 << take) - 1));
      this.filled += take;
      if (this.filled === 8) {
        this.push(this.current);
        this.current = 0;
        this.filled = 0;
      }
    }
    return this;
  }

  /** Unsigned Exp-Golomb, ue(v). */
  ue(value: number): this {
    const code = value + 1;
    const length = 32 - Math.clz32(code);
    return this.u(length - 1, 0).u(length, code);
  }

  /** Signed Exp-Golomb, se(v): 1, -1, 2, -2… map to 1, 2, 3, 4… */
  se(value: number): this {
    return this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  get aligned(): boolean {
    return this.filled === 0;
  }

  /** Whole bytes, written at a byte boundary (I_PCM samples). */
  raw(data: Uint8Array): this {
    this.reserve(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
    return this;
  }

  /** rbsp_trailing_bits: a one, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.u(1, 1);
    if (!this.aligned) this.u(8 - this.filled, 0);
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  private push(byte: number): void {
    this.reserve(1);
    this.buffer[this.length++] = byte;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.length + bytes));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

/** A NAL unit (header byte + payload) with emulation prevention: 00 00 0x (x ≤ 3) gets an 03. */
export function nalUnit(refIdc: number, type: number, rbsp: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(1 + rbsp.length + Math.ceil(rbsp.length / 2));
  out[0] = (refIdc << 5) | type;
  let n = 1;
  let zeros = 0;
  for (let i = 0; i < rbsp.length; i++) {
    const byte = rbsp[i]!;
    if (zeros >= 2 && byte <= 3) {
      out[n++] = 3;
      zeros = 0;
    }
    out[n++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, n);
}
