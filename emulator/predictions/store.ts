/**
 * Every prediction ever created, by id (ids are 1, 2, 3… so the array index is the lookup), and
 * the idempotency index. Nothing is deleted, so list order is creation order.
 */
import type { StoredPrediction } from './prediction.ts';

export interface SearchFilter {
  readonly text: string;
  readonly label: string | undefined;
  readonly createdAfter: number | undefined;
}

export class PredictionStore {
  private readonly all: StoredPrediction[] = [];
  private readonly byIdempotencyKey = new Map<string, StoredPrediction>();

  nextId(): number {
    return this.all.length + 1;
  }

  add(prediction: StoredPrediction, rememberKey: boolean): void {
    this.all.push(prediction);
    if (rememberKey && prediction.idempotencyKey !== undefined) {
      this.byIdempotencyKey.set(prediction.idempotencyKey, prediction);
    }
  }

  get(id: number): StoredPrediction | undefined {
    return Number.isSafeInteger(id) && id >= 1 ? this.all[id - 1] : undefined;
  }

  /** Parses an id from a path segment; undefined when it names no prediction. */
  find(segment: string): StoredPrediction | undefined {
    return /^\d{1,15}$/.test(segment) ? this.get(Number(segment)) : undefined;
  }

  /** Oldest first; for the state file (emulator/persistence). */
  list(): readonly StoredPrediction[] {
    return this.all;
  }

  /** Whether creates with this prediction's key return it (false when keys were ignored). */
  remembersKeyOf(prediction: StoredPrediction): boolean {
    return (
      prediction.idempotencyKey !== undefined &&
      this.byIdempotencyKey.get(prediction.idempotencyKey) === prediction
    );
  }

  byKey(idempotencyKey: string): StoredPrediction | undefined {
    return this.byIdempotencyKey.get(idempotencyKey);
  }

  /** Prompt substring (case-insensitive), model and creation time; oldest first. */
  search(filter: SearchFilter): StoredPrediction[] {
    const needle = filter.text.toLowerCase();
    return this.all.filter(
      (p) =>
        (filter.label === undefined || p.label === filter.label) &&
        (filter.createdAfter === undefined || Date.parse(p.createdAt) > filter.createdAfter) &&
        String(p.input.prompt ?? '')
          .toLowerCase()
          .includes(needle),
    );
  }
}
