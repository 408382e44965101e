/**
 * The model a review server shows, kept fresh: rebuilt at most once per interval however many
 * tabs poll, with a generation number per card (a job's or a derivative's) so a page asks only for
 * what changed since it last looked (a plan never gains jobs or derivatives, so cards only change,
 * never appear).
 */

import type { DerivativeCard } from './channels.ts';
import type { ModelSources } from './model.ts';
import { buildModel, type CampaignModel, type Item } from './model.ts';

export interface Changes {
  readonly model: CampaignModel;
  readonly generation: number;
  readonly items: readonly Item[];
  /** The channels' cards that changed (a derivative made or failed). */
  readonly derivatives: readonly DerivativeCard[];
}

/** Every card of a model, a job's or a derivative's: each has a key and a version. */
function cardsOf(model: CampaignModel): { key: string; version: string }[] {
  return [
    ...model.steps.flatMap((step) => step.items),
    ...model.channels.flatMap((channel) => channel.items),
  ];
}

export class LiveModel {
  private generation = 0;
  private readonly versions = new Map<string, { version: string; changedAt: number }>();
  private latest: Promise<CampaignModel> | null = null;
  private readAt = 0;
  /** How long the last reading took: a large campaign's takes longer, so it is read less often. */
  private costMs = 0;

  private readonly load: () => Promise<ModelSources>;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(load: () => Promise<ModelSources>, intervalMs = 1000, now: () => number = Date.now) {
    this.load = load;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /** The model, read again when the last reading is older than the interval. */
  current(): Promise<CampaignModel> {
    // Reading never takes more than a fifth of the time: a page of a huge campaign is a little
    // slower to follow, and the worker beside it keeps its CPU.
    if (this.latest === null || this.now() - this.readAt >= Math.max(this.intervalMs, 5 * this.costMs)) {
      const began = this.now();
      this.readAt = began;
      const reading = this.load().then((sources) => {
        const model = this.track(buildModel(sources));
        this.costMs = this.now() - began;
        return model;
      });
      // A failed reading (a file mid-write, Temporal away) is tried again at the next call.
      reading.catch(() => {
        if (this.latest === reading) this.latest = null;
      });
      this.latest = reading;
    }
    return this.latest;
  }

  /** Forget the last reading: a decision was just acknowledged. */
  invalidate(): void {
    this.latest = null;
  }

  async changesSince(since: number): Promise<Changes> {
    const model = await this.current();
    const changed = ({ key }: { key: string }) => (this.versions.get(key)?.changedAt ?? 0) > since;
    return {
      model,
      generation: this.generation,
      items: model.steps.flatMap((step) => step.items.filter(changed)),
      derivatives: model.channels.flatMap((channel) => channel.items.filter(changed)),
    };
  }

  /** The generation a page rendered now starts from. */
  async snapshot(): Promise<{ model: CampaignModel; generation: number }> {
    const model = await this.current();
    return { model, generation: this.generation };
  }

  private track(model: CampaignModel): CampaignModel {
    const next = this.generation + 1;
    let changed = false;
    for (const item of cardsOf(model)) {
      const known = this.versions.get(item.key);
      if (known?.version === item.version) continue;
      // The first reading is what every page starts from: generation 0.
      this.versions.set(item.key, { version: item.version, changedAt: known ? next : 0 });
      changed ||= known !== undefined;
    }
    if (changed) this.generation = next;
    return model;
  }
}
