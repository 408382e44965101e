/**
 * The caps ledger as its memo shows it (workflows/caps/engine/view.ts writes it; `caps show` and `run`'s
 * preflight read it through control/caps.ts): every cap with what is spent in its period and what
 * running campaigns have reserved (committed) under it, and which campaigns a cap holds. A schema
 * first, the type derived: clients parse what they read from Temporal, never cast it.
 */
import { z } from 'zod';

const micros = z.number().int();

export const CapsView = z.object({
  caps: z.object({
    daily: micros.nullable(),
    monthly: micros.nullable(),
    models: z.record(z.string(), micros),
  }),
  day: z.string(),
  month: z.string(),
  lines: z.array(
    z.object({
      cap: z.enum(['daily', 'monthly']),
      model: z.string().nullable(),
      limit: micros,
      spent: micros,
      committed: micros,
    }),
  ),
  /** Campaigns (workflow ids) with an ask a cap holds. */
  held: z.array(z.string()),
  /** Committed per campaign (all models). */
  committedBy: z.record(z.string(), micros),
  /**
   * What is spent in the day and month (per model too), capped or not: what a newer engine's
   * ledger carries over (workflows/caps/engine/adopt.ts). Absent in memos of engine 2, which showed only
   * the capped lines.
   */
  spent: z.object({ day: micros, month: micros, models: z.record(z.string(), micros) }).optional(),
  /**
   * Where spend comes from besides campaigns' reports: the service's account usage, read at `at`
   * (ms), the day and month measured from a reading before they began (`dayKnown`, `monthKnown`)
   * or, without one, counting all the key ever spent. Absent: never read (campaigns' reports only).
   */
  usage: z
    .object({ at: z.number(), day: z.string(), dayKnown: z.boolean(), monthKnown: z.boolean() })
    .optional(),
});
export type CapsView = z.infer<typeof CapsView>;
