import { describe, expect, it } from 'vitest';
import { readEach } from '../../store/read-each.ts';

/** Busy for `ms`: what a read that waits on the disk looks like to the clock. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('reading many files at once', () => {
  it('reads every item synchronously while reads are quick, in order', async () => {
    const later: number[] = [];
    const got = await readEach(
      2_500,
      (i) => i * 2,
      async (i) => {
        later.push(i);
        return i * 2;
      },
    );
    expect(got).toEqual(Array.from({ length: 2_500 }, (_, i) => i * 2));
    // A quick read judged slow now and then (the machine busy) may hand the rest over; never most.
    expect(later.length).toBeLessThan(2_500 - 16);
  });

  it('reads the rest in parallel once reads wait on the disk, still in order', async () => {
    const now: number[] = [];
    const got = await readEach(
      200,
      (i) => {
        now.push(i);
        spin(1);
        return `file ${i}`;
      },
      async (i) => `file ${i}`,
    );
    expect(got).toEqual(Array.from({ length: 200 }, (_, i) => `file ${i}`));
    expect(now).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('judges each thousand reads afresh: a slow spell does not decide how the rest are read', async () => {
    const later: number[] = [];
    const got = await readEach(
      2_500,
      (i) => {
        if (i < 1_000) spin(1);
        return i;
      },
      async (i) => {
        later.push(i);
        return i;
      },
    );
    expect(got).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    expect(later).toEqual(Array.from({ length: 1_000 - 16 }, (_, i) => i + 16));
  });

  it('passes on a failed read', async () => {
    await expect(
      readEach(
        3,
        (i) => {
          if (i === 1) throw new Error('EIO');
          return i;
        },
        async (i) => i,
      ),
    ).rejects.toThrow('EIO');
  });
});
