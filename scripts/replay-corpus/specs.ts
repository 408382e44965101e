/** The campaign specs the corpus is recorded from: small versions of the shapes real campaigns take. */
import { readFile } from 'node:fs/promises';

const numbered = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(', ');

/** specs/product-launch.yaml as users run it (30 jobs: 10 images, each into 2 videos), outputs local. */
export async function productLaunch(): Promise<string> {
  const text = await readFile(new URL('../../specs/product-launch.yaml', import.meta.url), 'utf8');
  return text.replace(/^output: .*$/m, 'output: { dir: out }');
}

/** `n` I4 stills, nothing chained. */
export function stills(n: number, concurrency: number): string {
  return `
version: 1
campaign: stills
concurrency: ${concurrency}
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { product: [${numbered('p', n)}] }
    input: { prompt: "Studio shot of product {{product}}" }
`;
}

export interface PairsOptions {
  concurrency: number;
  budgetUsd?: number;
  stillRetries?: number;
  clipRetries?: number;
  /** The still step's `review:` field (review gates), as written in YAML. */
  review?: string;
}

/** `n` I4 stills, each animated by a V6 clip: 2n jobs at $0.63 a pair. */
export function pairs(n: number, options: PairsOptions): string {
  const retries = (r: number | undefined) => (r === undefined ? '' : `\n    retries: ${r}`);
  return `
version: 1
campaign: pairs
${options.budgetUsd === undefined ? '' : `budget: { max_usd: ${options.budgetUsd} }`}
concurrency: ${options.concurrency}
output: { dir: out }
steps:
  - id: still
    model: I4${retries(options.stillRetries)}
    matrix: { product: [${numbered('p', n)}] }
    input: { prompt: "Studio shot of product {{product}}" }${options.review === undefined ? '' : `\n    review: ${options.review}`}
  - id: clip
    model: V6
    from: still${retries(options.clipRetries)}
    input: { prompt: "Product {{product}} turning slowly", first_frame_image: "{{from.output}}" }
`;
}
