/**
 * Where each model lives on the wire: `POST /v1/{owner}/{model}/predictions`.
 * The published identifiers carry vendor names, so the built-in ones are neutral placeholders that
 * the emulator serves. A real deployment's identifiers come from a small JSON file named by
 * MEDIAFLOW_CATALOGUE: `{ "V1": { "owner": "…", "model": "…" }, … }` (any subset of labels).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MODEL_LABELS, ModelLabel } from './models.ts';

export const ModelPath = z.object({
  owner: z.string().regex(/^[\w.-]+$/),
  model: z.string().regex(/^[\w.-]+$/),
});
export type ModelPath = z.infer<typeof ModelPath>;

export const CatalogueOverrides = z.partialRecord(ModelLabel, ModelPath);
export type CatalogueOverrides = z.infer<typeof CatalogueOverrides>;

export const DEFAULT_PATHS: Readonly<Record<ModelLabel, ModelPath>> = Object.fromEntries(
  MODEL_LABELS.map((label) => [
    label,
    { owner: `mf-${label.toLowerCase()}`, model: `${label.toLowerCase()}-base` },
  ]),
) as Record<ModelLabel, ModelPath>;

/** Resolves label ↔ path, with optional overrides for a real deployment. */
export class ModelPaths {
  private readonly byLabel: Record<ModelLabel, ModelPath>;
  private readonly byKey = new Map<string, ModelLabel>();

  constructor(overrides: CatalogueOverrides = {}) {
    this.byLabel = { ...DEFAULT_PATHS, ...overrides } as Record<ModelLabel, ModelPath>;
    for (const label of MODEL_LABELS) {
      const { owner, model } = this.byLabel[label];
      this.byKey.set(`${owner}/${model}`, label);
    }
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env): ModelPaths {
    const file = env.MEDIAFLOW_CATALOGUE;
    if (!file) return new ModelPaths();
    const parsed = CatalogueOverrides.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) {
      throw new Error(`MEDIAFLOW_CATALOGUE ${file}: ${z.prettifyError(parsed.error)}`);
    }
    return new ModelPaths(parsed.data);
  }

  pathOf(label: ModelLabel): ModelPath {
    return this.byLabel[label];
  }

  /** `owner/model`, as used in batch items and estimates. */
  idOf(label: ModelLabel): string {
    const { owner, model } = this.byLabel[label];
    return `${owner}/${model}`;
  }

  labelOf(owner: string, model: string): ModelLabel | undefined {
    return this.byKey.get(`${owner}/${model}`);
  }

  labelOfId(id: string): ModelLabel | undefined {
    return this.byKey.get(id);
  }
}
