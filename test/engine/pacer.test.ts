/** The campaign clock and the create pacer: plain data of the model, moved by functions. */
import { describe, expect, it } from 'vitest';
import * as Clock from '../../workflows/engine/pacing/clock.ts';
import * as Pacer from '../../workflows/engine/pacing/pacer.ts';

describe('the campaign clock', () => {
  it('moves only forward, with reported times and the timers slept', () => {
    const clock: Clock.Clock = { at: 1_000 };
    Clock.observe(clock, 900); // an older worker time: ignored
    expect(clock.at).toBe(1_000);
    Clock.observe(clock, 1_250);
    Clock.slept(clock, 1_250, 100);
    expect(clock.at).toBe(1_350);
  });
});

describe('the pacer', () => {
  it('allows one second of burst, then refills at the rate', () => {
    const pacer = Pacer.bucket(10, 0);
    expect(Pacer.available(pacer, 0)).toBe(10);
    Pacer.take(pacer, 10, 0);
    expect(Pacer.available(pacer, 0)).toBe(0);
    expect(Pacer.msUntilNext(pacer, 0)).toBe(100);
    expect(Pacer.available(pacer, 500)).toBe(5);
  });

  it('reports a debt as nothing available, and waits until it is repaid', () => {
    const pacer = Pacer.bucket(10, 0);
    // Heirs are charged after their creates: more can be taken than the bucket held.
    Pacer.take(pacer, 15, 0);
    expect(Pacer.available(pacer, 0)).toBe(0);
    expect(Pacer.msUntilNext(pacer, 0)).toBe(600);
    expect(Pacer.available(pacer, 600)).toBe(1);
  });

  it('waits out a Retry-After before refilling', () => {
    const pacer = Pacer.bucket(10, 0);
    Pacer.pauseUntil(pacer, 2_000, 0);
    expect(Pacer.available(pacer, 1_000)).toBe(0);
    expect(Pacer.available(pacer, 2_500)).toBe(5);
  });

  it('is read without being changed: a read at a later time refills nothing', () => {
    const pacer = Pacer.bucket(10, 0);
    Pacer.take(pacer, 10, 0);
    const before = structuredClone(pacer);
    expect(Pacer.available(pacer, 900)).toBe(9);
    expect(Pacer.msUntilNext(pacer, 900, 20)).toBe(1_100);
    expect(pacer).toEqual(before);
  });
});
