/** `notify:` as the plan stores it, and the target the environment adds (plan/notify.ts). */
import { describe, expect, it } from 'vitest';
import { NotifyTargetSpec, notifyRuleOf, withEnvironmentTarget } from '../../plan/notify.ts';

const SECRET = 'whsec_c2VjcmV0LXZhbHVlLW9mLTMyLWJ5dGVzLWxvbmctISE=';

describe('notify settings', () => {
  it('the spec form: kind standard by default, every notice unless listed', () => {
    expect(
      notifyRuleOf({
        targets: [
          { url: 'https://hooks.example.com/m', secret_env: 'HOOK' },
          { url_env: 'SLACK', kind: 'slack' },
        ],
      }),
    ).toEqual({
      targets: [
        {
          kind: 'standard',
          url: 'https://hooks.example.com/m',
          urlEnv: null,
          secretEnv: 'HOOK',
          events: null,
        },
        { kind: 'slack', url: null, urlEnv: 'SLACK', secretEnv: null, events: null },
      ],
      reviewUrl: null,
    });
  });

  it('MEDIAFLOW_NOTIFY_URL adds a target by the variables’ names, never their values', () => {
    const env = {
      MEDIAFLOW_NOTIFY_URL: 'https://hooks.example.com/secret-path',
      MEDIAFLOW_NOTIFY_SECRET: SECRET,
      MEDIAFLOW_REVIEW_URL: 'https://review.example.com/{campaign}',
    };
    const rule = withEnvironmentTarget(null, env);
    expect(rule).toEqual({
      targets: [
        {
          kind: 'standard',
          url: null,
          urlEnv: 'MEDIAFLOW_NOTIFY_URL',
          secretEnv: 'MEDIAFLOW_NOTIFY_SECRET',
          events: null,
        },
      ],
      reviewUrl: 'https://review.example.com/{campaign}',
    });
    expect(JSON.stringify(rule)).not.toContain(SECRET);
    expect(JSON.stringify(rule)).not.toContain('secret-path');
  });

  it('beside the spec’s targets; without the variable nothing changes', () => {
    const spec = notifyRuleOf({ targets: [{ url_env: 'SLACK', kind: 'slack' }] });
    expect(withEnvironmentTarget(spec, {})).toBe(spec);
    expect(withEnvironmentTarget(null, {})).toBeNull();
    const both = withEnvironmentTarget(spec, { MEDIAFLOW_NOTIFY_URL: 'x', MEDIAFLOW_NOTIFY_KIND: 'slack' });
    expect(both?.targets.map((t) => [t.kind, t.urlEnv, t.secretEnv])).toEqual([
      ['slack', 'SLACK', null],
      ['slack', 'MEDIAFLOW_NOTIFY_URL', null],
    ]);
  });

  it('refuses a standard target without its secret, and an unknown kind', () => {
    expect(() => withEnvironmentTarget(null, { MEDIAFLOW_NOTIFY_URL: 'x' })).toThrow(
      'MEDIAFLOW_NOTIFY_URL is set: a standard target also needs its signing secret in MEDIAFLOW_NOTIFY_SECRET',
    );
    expect(() =>
      withEnvironmentTarget(null, { MEDIAFLOW_NOTIFY_URL: 'x', MEDIAFLOW_NOTIFY_KIND: 'teams' }),
    ).toThrow('MEDIAFLOW_NOTIFY_KIND must be standard or slack, not "teams"');
  });
});

describe('a Slack URL is a secret however it is written', () => {
  it.each([
    'https://hooks.slack.com/services/T0/B0/x',
    'https://hooks.slack.com:443/services/T0/B0/x',
    'https://hooks.slack.com./services/T0/B0/x',
    'https://%68ooks.slack.com/services/T0/B0/x',
    'HTTPS://HOOKS.SLACK.COM/services/T0/B0/x',
  ])('%s is refused in the spec, with url_env to use instead', (url) => {
    const parsed = NotifyTargetSpec.safeParse({ url, kind: 'slack' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message).join('\n')).toContain(
      'is a Slack incoming-webhook URL, which is itself a secret',
    );
  });

  it('another host that merely begins alike is not', () => {
    expect(
      NotifyTargetSpec.safeParse({ url: 'https://hooks.slack.com.example.org/x', kind: 'slack' }).success,
    ).toBe(true);
  });
});
