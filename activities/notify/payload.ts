/**
 * What a notice says on the wire (docs/notifications.md): a Standard Webhooks event
 * (`{type, timestamp, data}`, snake_case, money as exact decimal strings beside integer
 * micro-dollars) or a Slack incoming-webhook message (`{"text": ...}`). Pure: tested as tables.
 */
import { formatDollars, formatUsd, type Micros } from '../../api/money.ts';
import type { CampaignOutcome } from '../../contract/campaign.ts';
import type { Notice, NoticeSummary, NotifyRequest } from '../../contract/notify.ts';

/** What the user can do about each way a campaign stops: the notice's `action`. */
const ACTIONS: Record<CampaignOutcome, string> = {
  running: '',
  completed: '',
  budget_reached:
    'raise budget.max_usd in the spec and run it again: what was made is kept and not paid again',
  balance_exhausted: 'add funds to the account, then run the spec again: it goes on where it stopped',
  canceled: 'run the spec again to go on where it stopped',
  disk_full: 'free space where the outputs are written, then run the spec again',
  output_unwritable: 'make the output folder writable by the worker, then run the spec again',
  plan_unreadable: "make the campaign's stored plan readable by the worker, then run the spec again",
  authentication_failed: "check the worker's API key (MEDIAFLOW_API_KEY), then run the spec again",
};

export function actionOf(outcome: CampaignOutcome): string {
  return ACTIONS[outcome];
}

/** The review sheet's address for this campaign: the configured one with `{campaign}` filled in. */
export function reviewLinkOf(request: NotifyRequest): string | null {
  return request.reviewUrl?.replaceAll('{campaign}', encodeURIComponent(request.campaign)) ?? null;
}

const money = (micros: Micros) => ({ usd: formatUsd(micros), micros });

function summaryData({ steps, spent, budget }: NoticeSummary) {
  return {
    steps: steps.map(({ id, ...counts }) => ({ step: id, ...counts })),
    spent: money(spent),
    budget: budget === null ? null : money(budget),
  };
}

function dataOf(request: NotifyRequest, notice: Notice): Record<string, unknown> {
  const campaign = request.campaign;
  switch (notice.type) {
    case 'review.awaiting':
      return {
        campaign,
        steps: notice.steps.map(({ id, awaiting }) => ({ step: id, awaiting })),
        awaiting: notice.steps.reduce((sum, { awaiting }) => sum + awaiting, 0),
        review_url: reviewLinkOf(request),
        review_command: `mediaflow review ${campaign}`,
      };
    case 'campaign.completed':
      return { campaign, outcome: 'completed', ...summaryData(notice.summary) };
    case 'campaign.stopped':
      return {
        campaign,
        outcome: notice.outcome,
        reason: notice.reason,
        action: actionOf(notice.outcome),
        ...summaryData(notice.summary),
      };
    case 'cap.threshold':
      return {
        campaign,
        cap: notice.cap,
        model: notice.model,
        percent: notice.percent,
        spent: money(notice.spent),
        limit: money(notice.limit),
        ...(notice.committed !== undefined && { committed: money(notice.committed) }),
      };
  }
}

/** The Standard Webhooks event: the body that is signed. */
export function standardBody(request: NotifyRequest): string {
  const { notice, at } = request;
  return JSON.stringify({ type: notice.type, timestamp: at, data: dataOf(request, notice) });
}

/** Slack's text escapes only these three (its mrkdwn reads `<…>` as a link). */
const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function countsLine({ steps, spent, budget }: NoticeSummary): string {
  const sum = (field: 'succeeded' | 'cached' | 'failed' | 'skipped' | 'canceled') =>
    steps.reduce((total, step) => total + step[field], 0);
  const parts = [`${sum('succeeded')} made`, `${sum('cached')} already done`, `${sum('failed')} failed`];
  if (sum('skipped') > 0) parts.push(`${sum('skipped')} skipped`);
  if (sum('canceled') > 0) parts.push(`${sum('canceled')} canceled`);
  const of = budget === null ? '' : ` of ${formatDollars(budget)}`;
  return `${parts.join(', ')}; spent ${formatDollars(spent)}${of}`;
}

function slackText(request: NotifyRequest): string {
  const { notice } = request;
  const name = `campaign "${request.campaign}"`;
  switch (notice.type) {
    case 'review.awaiting': {
      const total = notice.steps.reduce((sum, { awaiting }) => sum + awaiting, 0);
      const steps = notice.steps.map(({ id, awaiting }) => `${id}: ${awaiting}`).join(', ');
      const link = reviewLinkOf(request);
      const where = link
        ? `review them at <${link}>`
        : `review them with \`mediaflow review ${request.campaign}\``;
      return `mediaflow: ${total} ${total === 1 ? 'take awaits' : 'takes await'} review in ${slackEscape(name)} (${slackEscape(steps)}); ${where}`;
    }
    case 'campaign.completed':
      return `mediaflow: ${slackEscape(name)} completed: ${countsLine(notice.summary)}`;
    case 'campaign.stopped': {
      const reason = notice.reason ? `: ${notice.reason}` : '';
      const text = `${name} stopped (${notice.outcome})${reason}. What to do: ${actionOf(notice.outcome)}. So far: ${countsLine(notice.summary)}`;
      return `mediaflow: ${slackEscape(text)}`;
    }
    case 'cap.threshold': {
      const model = notice.model ? ` for ${notice.model}` : '';
      const text = `${notice.cap} cap${model} ${notice.percent} % reached: ${formatDollars(notice.spent)} of ${formatDollars(notice.limit)}${notice.committed ? ` (${formatDollars(notice.committed)} more committed)` : ''} (${name})`;
      return `mediaflow: ${slackEscape(text)}`;
    }
  }
}

/** The Slack incoming-webhook message. */
export function slackBody(request: NotifyRequest): string {
  return JSON.stringify({ text: slackText(request) });
}
