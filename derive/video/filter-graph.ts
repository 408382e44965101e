/**
 * An ffmpeg filter graph (`-filter_complex`) built up filter by filter, each filter remembering
 * which operation asked for it. Written by hand: no well-kept Node library builds filter graphs
 * (fluent-ffmpeg, the one that did, is deprecated and unmaintained, and it only strings together
 * what it is given), and the graph here is a short chain with a side input per overlay.
 *
 * ffmpeg names each filter of a parsed graph `Parsed_<filter>_<n>`, n counting filters in the
 * order the text lists them, and its errors carry that name: the graph keeps the same order, so a
 * failure can be traced back to the operation whose filter failed.
 */

export interface Filter {
  /** `name=option=value:...`, as ffmpeg reads it. */
  readonly text: string;
  /** The operation (its index in the list) the filter does the work of, or null for plumbing. */
  readonly owner: number | null;
}

/** The labels the graph's results end at, for `-map [label]`. */
export const GRAPH_OUT = { picture: 'vout', sound: 'aout' } as const;

interface Chain {
  readonly inputs: readonly string[];
  readonly filters: readonly Filter[];
  readonly output: string;
}

export class FilterGraph {
  /** The overlays' inputs and the picture's chain up to each overlay, in the order they were added. */
  readonly #chains: Chain[] = [];
  readonly #audio: Chain[] = [];
  #videoInputs: string[] = ['0:v'];
  #videoFilters: Filter[] = [];
  #labels = 0;

  /** Appends a filter to the main picture's chain. */
  video(text: string, owner: number | null): void {
    this.#videoFilters.push({ text, owner });
  }

  /**
   * Lays input `input`'s picture, prepared by `prepare` (scale, opacity), over the main one with
   * `overlay`; the main chain goes on from the result.
   */
  overlay(input: number, prepare: readonly string[], overlay: string, owner: number): void {
    const main = this.#label('v');
    this.#chains.push({ inputs: this.#videoInputs, filters: this.#mainFilters(), output: main });
    const side = this.#label('o');
    this.#chains.push({
      inputs: [`${input}:v`],
      filters: prepare.map((text) => ({ text, owner })),
      output: side,
    });
    this.#videoInputs = [main, side];
    this.#videoFilters = [{ text: overlay, owner }];
  }

  /** A chain of its own for the sound, from input `input`'s. */
  audio(input: number, filters: readonly string[], owner: number): void {
    const output = GRAPH_OUT.sound;
    this.#audio.push({ inputs: [`${input}:a`], filters: filters.map((text) => ({ text, owner })), output });
  }

  /** The graph as ffmpeg reads it. */
  text(): string {
    return this.#all()
      .map((chain) => {
        const inputs = chain.inputs.map((label) => `[${label}]`).join('');
        return `${inputs}${chain.filters.map((filter) => filter.text).join(',')}[${chain.output}]`;
      })
      .join(';');
  }

  /** The operation whose filter ffmpeg parsed as number `parsedIndex` (`Parsed_<name>_<n>`). */
  ownerOf(parsedIndex: number): number | null {
    return this.#all().flatMap((chain) => chain.filters)[parsedIndex]?.owner ?? null;
  }

  #all(): Chain[] {
    const main = { inputs: this.#videoInputs, filters: this.#mainFilters(), output: GRAPH_OUT.picture };
    return [...this.#chains, main, ...this.#audio];
  }

  /** A chain needs a filter: `null` passes the picture on as it is. */
  #mainFilters(): Filter[] {
    return this.#videoFilters.length > 0 ? this.#videoFilters : [{ text: 'null', owner: null }];
  }

  #label(prefix: string): string {
    this.#labels += 1;
    return `${prefix}${this.#labels}`;
  }
}
