/**
 * The last few values made, by key: what a worker keeps between derivatives when many of them name
 * the same thing (a font, a headline at one size). The oldest goes when there are more than it keeps.
 */
export class Recent<V> {
  readonly #values = new Map<string, V>();
  readonly #keeps: number;

  constructor(keeps: number) {
    this.#keeps = keeps;
  }

  get(key: string): V | undefined {
    return this.#values.get(key);
  }

  set(key: string, value: V): void {
    this.#values.delete(key);
    this.#values.set(key, value);
    const oldest = this.#values.keys().next();
    if (this.#values.size > this.#keeps && !oldest.done) this.#values.delete(oldest.value);
  }
}
