/**
 * How long a prediction stays `processing`: video takes tens of seconds, images a few, like
 * real hosted models; multiplied by the time scale (0 = the next tick) and jittered ±25%.
 */
import type { ModelLabel } from '../../api/catalogue/index.ts';
import type { EmulatorOptions } from '../options.ts';
import type { Random } from '../random.ts';

export const BASE_LATENCY_MS: Readonly<Record<ModelLabel, number>> = {
  V1: 40_000,
  V2: 60_000,
  V3: 45_000,
  V4: 30_000,
  V5: 35_000,
  V6: 50_000,
  I1: 4_000,
  I2: 3_000,
  I3: 8_000,
  I4: 2_000,
  I5: 5_000,
};

export interface LatencySettings {
  readonly timeScale: number;
  readonly latencyMs: EmulatorOptions['latencyMs'];
  readonly jitter: boolean;
}

export function latencyOf(label: ModelLabel, settings: LatencySettings, random: Random): number {
  const override = settings.latencyMs;
  const base = (typeof override === 'number' ? override : override?.[label]) ?? BASE_LATENCY_MS[label];
  const jitter = settings.jitter ? 0.75 + random() * 0.5 : 1;
  return Math.round(base * jitter * settings.timeScale);
}
