/**
 * Notifications (docs/notifications.md): where a campaign sends them, what each one says, and what
 * the delivery activity takes. Neutral ground: the reducer decides a notice, the executor hands it
 * to the activity, the CLI reads delivery failures back from the memo. Nothing here is a secret:
 * a target names the environment variables holding its secret (and, for a URL that is itself a
 * secret, such as a Slack incoming webhook, its URL); the activity reads them on the worker.
 */
import type { Micros } from '../api/money.ts';
import type { CampaignOutcome } from './progress.ts';

/** One receiver, as the plan stores it (plan/notify.ts parses the spec into this). */
export interface NotifyTarget {
  /** `standard`: a JSON event signed per Standard Webhooks; `slack`: `{"text": ...}`, unsigned. */
  readonly kind: 'standard' | 'slack';
  /** Written in the spec; null when `urlEnv` names it. */
  readonly url: string | null;
  /** The worker's environment variable holding the URL (one whose path is its secret). */
  readonly urlEnv: string | null;
  /** The worker's environment variable holding the `whsec_…` signing secret (standard only). */
  readonly secretEnv: string | null;
  /** The notice types it wants; null: all of them. */
  readonly events: readonly NoticeType[] | null;
}

export interface NotifySettings {
  readonly targets: readonly NotifyTarget[];
  /** The review sheet's address as reviewers reach it, `{campaign}` filled in; never a token. */
  readonly reviewUrl: string | null;
}

/** Counts of one step when a campaign ends. */
export interface NoticeStep {
  readonly id: string;
  readonly succeeded: number;
  readonly cached: number;
  readonly failed: number;
  readonly skipped: number;
  readonly canceled: number;
}

/** A campaign's result in numbers, money exact (integer micro-dollars). */
export interface NoticeSummary {
  readonly steps: readonly NoticeStep[];
  readonly spent: Micros;
  readonly budget: Micros | null;
}

export type Notice =
  | {
      readonly type: 'review.awaiting';
      /** Takes awaiting a decision, per reviewed step with any. */
      readonly steps: readonly { readonly id: string; readonly awaiting: number }[];
    }
  | { readonly type: 'campaign.completed'; readonly summary: NoticeSummary }
  | {
      readonly type: 'campaign.stopped';
      readonly outcome: CampaignOutcome;
      /** In the words of the failure that stopped it (progress.stopMessage), or null. */
      readonly reason: string | null;
      readonly summary: NoticeSummary;
    }
  | {
      /** Emitted by spend caps (docs/caps.md): a cap's 50, 80 or 100 % crossed. */
      readonly type: 'cap.threshold';
      readonly cap: 'daily' | 'monthly';
      /** The model a per-model cap holds; null: all models. */
      readonly model: string | null;
      readonly percent: 50 | 80 | 100;
      readonly spent: Micros;
      readonly limit: Micros;
      /** Reserved under the cap by running campaigns (a cap may hold with little spent yet). */
      readonly committed?: Micros;
    };

/** What the delivery activity takes: one notice to one target, under the notice's id. */
export interface NotifyRequest {
  /** The idempotency id (the `webhook-id` header): one per notice, the same on every attempt. */
  readonly id: string;
  readonly campaign: string;
  /** Workflow time the notice was decided at, ISO text. */
  readonly at: string;
  readonly target: NotifyTarget;
  readonly reviewUrl: string | null;
  readonly notice: Notice;
}

/**
 * Delivery as the memo keeps it (progress.notifications; status prints the failures). The latest
 * failures, newest last: `host: reason`, never a URL's path or a secret.
 */
export interface NotifyTally {
  delivered: number;
  failed: number;
  failures: string[];
}

/** The notice types (plan/notify.ts lists them for the spec; the compiler keeps the two equal). */
export type NoticeType = Notice['type'];

/** Whether a target wants a notice type. */
export function wants(target: NotifyTarget, type: NoticeType): boolean {
  return target.events === null || target.events.includes(type);
}
