/**
 * A parent's bytes while its derivatives are made: read on first use, under one of the worker's
 * slots for parents in hand (DeriveDeps.parents), and held until the job's derivatives are all
 * made. Without the bound every job saved at once read its parent and waited for the cores with
 * it (and with the files made from it waiting for their writes): memory grew with the jobs in
 * flight, not with the work the cores can do (derive-2k, docs/benchmarks.md). A job whose
 * derivatives all stand never reads its parent and takes no slot.
 */
import type { LimitFunction } from 'p-limit';

export interface ParentInHand {
  bytes(): Promise<Buffer>;
  /** The job's derivatives are made: the slot goes to the next parent. */
  release(): void;
}

export function parentInHand(parents: LimitFunction, read: () => Promise<Buffer>): ParentInHand {
  let released!: () => void;
  const done = new Promise<void>((resolve) => {
    released = resolve;
  });
  let bytes: Promise<Buffer> | undefined;
  return {
    bytes() {
      bytes ??= new Promise<Buffer>((resolve, reject) => {
        void parents(async () => {
          try {
            resolve(await read());
          } catch (error) {
            reject(error);
            return;
          }
          await done;
        });
      });
      return bytes;
    },
    release: released,
  };
}
