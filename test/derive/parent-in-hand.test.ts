/**
 * A worker holds at most its bound of parents for their derivatives: the next job's parent is read
 * only once a job before it has made all of its files, a job with nothing to make never takes a
 * place, a parent is read once for all its derivatives, and a read that fails gives its place up.
 */
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { parentInHand } from '../../activities/derive/parent-in-hand.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

function reader(name: string, reads: string[], fail = false) {
  return async () => {
    reads.push(name);
    if (fail) throw new Error(`${name} is gone`);
    return Buffer.from(name);
  };
}

describe('parents in hand', () => {
  it('reads the next parent only when a job before it has released its own', async () => {
    const parents = pLimit(1);
    const reads: string[] = [];
    const a = parentInHand(parents, reader('a', reads));
    const b = parentInHand(parents, reader('b', reads));
    expect((await a.bytes()).toString()).toBe('a');
    const bBytes = b.bytes();
    await settle();
    expect(reads).toEqual(['a']);
    a.release();
    expect((await bBytes).toString()).toBe('b');
    expect(reads).toEqual(['a', 'b']);
  });

  it('takes no place for a job whose derivatives all stand, and reads a parent once', async () => {
    const parents = pLimit(1);
    const reads: string[] = [];
    parentInHand(parents, reader('standing', reads)).release();
    const c = parentInHand(parents, reader('c', reads));
    await Promise.all([c.bytes(), c.bytes(), c.bytes()]);
    expect(reads).toEqual(['c']);
    expect(parents.activeCount).toBe(1);
    c.release();
    await settle();
    expect(parents.activeCount).toBe(0);
  });

  it('gives its place up when the parent cannot be read', async () => {
    const parents = pLimit(1);
    const reads: string[] = [];
    const lost = parentInHand(parents, reader('lost', reads, true));
    const next = parentInHand(parents, reader('next', reads));
    await expect(lost.bytes()).rejects.toThrow('lost is gone');
    expect((await next.bytes()).toString()).toBe('next');
    next.release();
  });
});
