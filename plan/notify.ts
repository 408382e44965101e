/**
 * `notify:` in the spec (docs/notifications.md): where a campaign's notices go, as written, and as
 * the plan stores it (the shape contract/notify.ts names NotifySettings). Secrets are never
 * written here: a Standard Webhooks target names the environment variable holding its signing
 * secret (`secret_env`), and a URL that is itself a secret, as a Slack incoming webhook's is,
 * is named the same way (`url_env`). The worker reads them when it delivers.
 */
import { z } from 'zod';

export const NOTICE_TYPES = [
  'review.awaiting',
  'campaign.completed',
  'campaign.stopped',
  'cap.threshold',
] as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EnvName = z.string().regex(ENV_NAME, {
  // Worded so the problem never quotes the value: it may be the secret written in by mistake.
  error: 'is not the NAME of an environment variable (letters, digits, "_"): write the name, never the value',
});

/**
 * Whether the URL is a Slack incoming webhook's, however it is written: its host as the URL
 * standard reads it (case, percent-escapes, a port, the root's trailing dot are spellings of it).
 */
function isSlackHook(url: string): boolean {
  try {
    return new URL(url).hostname.replace(/\.$/, '') === 'hooks.slack.com';
  } catch {
    return false;
  }
}

/** An http(s) URL with no user or password in it (those are secrets: name a variable instead). */
const HookUrl = z
  .url({ protocol: /^https?$/, error: 'is not an http:// or https:// URL' })
  .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), {
    error:
      'must not hold a user or password: put the whole URL in an environment variable and name it in url_env',
  })
  .refine((url) => !isSlackHook(url), {
    error:
      'is a Slack incoming-webhook URL, which is itself a secret: put it in an environment variable and name it in url_env',
  });

export const NotifyTargetSpec = z
  .strictObject({
    url: HookUrl.optional().meta({ description: 'Where notices are POSTed (not a secret).' }),
    url_env: EnvName.optional().meta({
      description: 'The environment variable holding the URL, for a URL that is a secret (Slack).',
    }),
    kind: z.enum(['standard', 'slack']).optional().meta({
      description: 'standard (default): a JSON event signed per Standard Webhooks; slack: {"text": ...}.',
    }),
    secret_env: EnvName.optional().meta({
      description: 'The environment variable holding the whsec_ signing secret (standard targets).',
    }),
    events: z.array(z.enum(NOTICE_TYPES)).min(1).optional().meta({
      description: 'The notices this target gets (default: all of them).',
    }),
  })
  .superRefine((target, context) => {
    if ((target.url === undefined) === (target.url_env === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'must have either url or url_env (one of them)',
        path: [],
      });
    }
    if ((target.kind ?? 'standard') === 'standard' && target.secret_env === undefined) {
      context.addIssue({
        code: 'custom',
        message: 'needs secret_env: a Standard Webhooks target is signed with the secret that variable holds',
        path: [],
      });
    }
  })
  .meta({ description: 'One receiver of notices.' });
export type NotifyTargetSpec = z.infer<typeof NotifyTargetSpec>;

export const NotifySpec = z
  .strictObject({
    targets: z.array(NotifyTargetSpec).min(1, { error: 'must list at least one target' }),
    review_url: HookUrl.refine((url) => !url.includes('?'), {
      error: 'must not carry a query: a review link in a notice never holds a token',
    })
      .optional()
      .meta({
        description:
          'The review sheet’s address as reviewers reach it; {campaign} is replaced by the campaign name.',
      }),
  })
  .meta({ description: 'Where the campaign’s notices go (docs/notifications.md).' });
export type NotifySpec = z.infer<typeof NotifySpec>;

/** A target as the plan stores it and the workflow carries it. */
export const NotifyTarget = z
  .object({
    kind: z.enum(['standard', 'slack']),
    url: z.string().nullable(),
    urlEnv: z.string().nullable(),
    secretEnv: z.string().nullable(),
    events: z.array(z.enum(NOTICE_TYPES)).nullable(),
  })
  .readonly();
export type NotifyTarget = z.infer<typeof NotifyTarget>;

export const NotifyRule = z
  .object({ targets: z.array(NotifyTarget), reviewUrl: z.string().nullable() })
  .readonly();
export type NotifyRule = z.infer<typeof NotifyRule>;

export function notifyRuleOf(spec: NotifySpec | undefined): NotifyRule | null {
  if (!spec) return null;
  return {
    targets: spec.targets.map((target) => ({
      kind: target.kind ?? 'standard',
      url: target.url ?? null,
      urlEnv: target.url_env ?? null,
      secretEnv: target.secret_env ?? null,
      events: target.events ?? null,
    })),
    reviewUrl: spec.review_url ?? null,
  };
}

/**
 * The variables that configure a target without a spec: the URL's (a secret, so named, never
 * carried), the kind, and the signing secret's. Read where `run` starts a campaign; the worker
 * reads the URL and secret by these names when it delivers.
 */
export const NOTIFY_ENV = {
  url: 'MEDIAFLOW_NOTIFY_URL',
  kind: 'MEDIAFLOW_NOTIFY_KIND',
  secret: 'MEDIAFLOW_NOTIFY_SECRET',
  reviewUrl: 'MEDIAFLOW_REVIEW_URL',
} as const;

/** The spec's targets plus the environment's one, if MEDIAFLOW_NOTIFY_URL is set; null: none. */
export function withEnvironmentTarget(
  rule: NotifyRule | null,
  env: Readonly<Record<string, string | undefined>>,
): NotifyRule | null {
  if (!env[NOTIFY_ENV.url]) return rule;
  const kind = env[NOTIFY_ENV.kind] ?? 'standard';
  if (kind !== 'standard' && kind !== 'slack') {
    throw new Error(`${NOTIFY_ENV.kind} must be standard or slack, not ${JSON.stringify(kind)}`);
  }
  if (kind === 'standard' && !env[NOTIFY_ENV.secret]) {
    throw new Error(
      `${NOTIFY_ENV.url} is set: a standard target also needs its signing secret in ${NOTIFY_ENV.secret}`,
    );
  }
  const target: NotifyTarget = {
    kind,
    url: null,
    urlEnv: NOTIFY_ENV.url,
    secretEnv: kind === 'standard' ? NOTIFY_ENV.secret : null,
    events: null,
  };
  return {
    targets: [...(rule?.targets ?? []), target],
    reviewUrl: rule?.reviewUrl ?? env[NOTIFY_ENV.reviewUrl] ?? null,
  };
}
