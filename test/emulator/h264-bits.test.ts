/**
 * The H.264 writer's building blocks, checked against the standard's own examples: Exp-Golomb
 * codes (H.264 §9.1, Table 9-2) and emulation prevention (§7.4.1): a payload never contains a
 * start code, or a decoder would cut the frame there.
 */
import { describe, expect, it } from 'vitest';
import { BitWriter, nalUnit } from '../../emulator/media/bits.ts';

function bits(write: (w: BitWriter) => void): string {
  const w = new BitWriter();
  write(w);
  // The trailing bits add a 1 and zeros: cut from the last 1.
  const all = [...w.trailing()].map((b) => b.toString(2).padStart(8, '0')).join('');
  return all.slice(0, all.lastIndexOf('1'));
}

describe('BitWriter', () => {
  it.each([
    [0, '1'],
    [1, '010'],
    [2, '011'],
    [3, '00100'],
    [8, '0001001'],
  ])('writes ue(%i) as %s', (value, code) => {
    expect(bits((w) => w.ue(value))).toBe(code);
  });

  it.each([
    [0, '1'],
    [1, '010'],
    [-1, '011'],
    [2, '00100'],
    [-2, '00101'],
  ])('writes se(%i) as %s', (value, code) => {
    expect(bits((w) => w.se(value))).toBe(code);
  });

  it('packs fixed fields across byte boundaries and pads with the trailing bits', () => {
    const w = new BitWriter().u(3, 0b101).u(8, 0xff).u(2, 0);
    expect([...w.trailing()]).toEqual([0b10111111, 0b11100100]);
  });
});

describe('nalUnit', () => {
  it('escapes every 00 00 0x (x ≤ 3) and leaves other bytes alone', () => {
    const nal = nalUnit(3, 5, Uint8Array.from([0, 0, 1, 0, 0, 0, 0, 0, 4, 0, 0, 3]));
    expect([...nal]).toEqual([0x65, 0, 0, 3, 1, 0, 0, 3, 0, 0, 3, 0, 4, 0, 0, 3, 3]);
    for (let i = 1; i + 2 < nal.length; i++) {
      expect(nal[i] === 0 && nal[i + 1] === 0 && nal[i + 2]! <= 2).toBe(false);
    }
  });
});
