/**
 * `mediaflow review-link <campaign> --name Ana --role decide --expires 48h`: a signed link for one
 * person (review/links.ts), printed once and never stored (only its id, name, role and expiry);
 * `--revoke <id>` stops one at once, `--list` shows them. The secret and revocations are kept in
 * the stack's state, 0600 (review/link-keys.ts); nothing here needs Temporal or the campaign
 * running, so links can be made before the server starts.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { SAFE_NAME, SAFE_NAME_RULE } from '../../plan/schema.ts';
import { issueLink, listLinks, revokeLink } from '../../review/link-keys.ts';
import { INBOX_SCOPE, LinkRole, parseDuration } from '../../review/links.ts';
import { UserError } from '../errors.ts';
import { servingOrigin } from '../review-address.ts';
import { stateDirOf } from '../state-home.ts';

/** One file per campaign, so revoking in one campaign never touches another's links. */
export function linkKeysFile(campaign: string): string {
  if (!SAFE_NAME.test(campaign))
    throw new UserError(`campaign ${JSON.stringify(campaign)}: must be ${SAFE_NAME_RULE}`);
  return join(stateDirOf(), 'review-links', `${campaign}.json`);
}

/**
 * The inbox's secret and revocations (docs/review.md, "The inbox"): a name no campaign can have
 * (campaign names start with a letter or digit), so no campaign's file is ever taken for it.
 */
export function inboxKeysFile(): string {
  return join(stateDirOf(), 'review-links', `${INBOX_SCOPE}.json`);
}

/**
 * `--listen HOST[:PORT]` (or `--port`) as fastify's listen options; loopback by default. The host
 * is written as the URL standard writes it (`0`, `0x0` and `0.0` are 0.0.0.0; `[0:0::0]` is `::`;
 * `127.1` is 127.0.0.1), as the system's resolver reads it, so every spelling of an address is
 * judged as that address.
 */
export function listenAddress(
  listen: string | undefined,
  port: number | undefined,
): { host: string; port: number } {
  if (!listen) return { host: '127.0.0.1', port: port ?? 0 };
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::([0-9]{1,5}))?$/.exec(listen);
  const host = match && canonicalHost(match[1]!);
  if (!host)
    throw new UserError(`--listen ${listen}: expected HOST or HOST:PORT`, 'e.g. --listen 0.0.0.0:8470');
  return { host, port: match[2] ? Number(match[2]) : (port ?? 0) };
}

function canonicalHost(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/** Whether a listen host (as listenAddress gives it) is every address of this machine. */
export function everyAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '::ffff:0:0';
}

interface LinkOptions {
  name?: string;
  role: string;
  expires: string;
  url?: string;
  revoke?: string;
  list?: boolean;
  inbox?: boolean;
}

/** The keys file, the links' scope and how commands name it: a campaign's, or the inbox's. */
function scopeOf(campaign: string | undefined, options: LinkOptions) {
  if (Boolean(options.inbox) === (campaign !== undefined))
    throw new UserError(
      'name a campaign or give --inbox (one of them)',
      'e.g. mediaflow review-link launch --name Ana',
    );
  return campaign === undefined
    ? { file: inboxKeysFile(), scope: INBOX_SCOPE, args: '--inbox' }
    : { file: linkKeysFile(campaign), scope: campaign, args: campaign };
}

export function register(program: Command): void {
  program
    .command('review-link [campaign]')
    .description(
      'Print a signed review link for one person (a role, a name, an expiry), or revoke one; --inbox: a link to the inbox and every campaign’s sheet.',
    )
    .option('--inbox', 'a link for the inbox (`mediaflow review` alone): every campaign of this stack')
    .option('--name <name>', 'who the link is for: recorded with each of their decisions')
    .option('--role <role>', 'view (see only) or decide (approve, reject, regenerate)', 'view')
    .option('--expires <duration>', 'how long it opens the sheet: 30m, 48h, 7d', '48h')
    .option(
      '--url <base>',
      'the review server’s address as reviewers reach it',
      process.env.MEDIAFLOW_REVIEW_URL,
    )
    .option('--revoke <id>', 'revoke the link with this id (from its creation or --list)')
    .option('--list', 'list the links issued, with ids and expiry')
    .action(async (campaign: string | undefined, options: LinkOptions) => {
      const { file, scope, args } = scopeOf(campaign, options);
      if (options.revoke) {
        if (!(await revokeLink(file, options.revoke)))
          throw new UserError(
            `no link ${options.revoke} for ${campaign ?? 'the inbox'}`,
            `see mediaflow review-link ${args} --list`,
          );
        console.log(`Revoked ${options.revoke}: it opens nothing from now on.`);
        return;
      }
      if (options.list) {
        const { issued, revoked } = await listLinks(file);
        for (const link of issued) {
          const state = revoked.has(link.id) ? 'revoked' : `until ${new Date(link.exp).toISOString()}`;
          console.log(`${link.id}  ${link.role.padEnd(6)}  ${link.name}  ${state}`);
        }
        return;
      }
      const role = LinkRole.safeParse(options.role);
      if (!role.success) throw new UserError(`--role ${options.role}: expected view or decide`);
      const ms = parseDuration(options.expires);
      if (ms === null) throw new UserError(`--expires ${options.expires}: expected e.g. 30m, 48h or 7d`);
      const name = options.name?.trim();
      if (!name || name.length > 200) throw new UserError('--name is required (up to 200 characters)');
      const { token, claims } = await issueLink(file, {
        campaign: scope,
        name,
        role: role.data,
        exp: Date.now() + ms,
      });
      // The running server's address when one serves this scope (cli/review-address.ts).
      const serving = options.url ?? (await servingOrigin(scope));
      const base = (serving ?? 'http://127.0.0.1:<port>').replace(/\/+$/, '');
      if (serving === null)
        console.error(
          `no review server runs for ${args} here: start \`mediaflow review ${campaign ?? ''}\` and put its address in place of http://127.0.0.1:<port>, or give --url`,
        );
      // The link is the person's key: printed once, to this terminal only.
      console.log(`${base}/${token}/`);
      console.error(
        `${claims.role} link for ${claims.name}, id ${claims.id}, until ${new Date(claims.exp).toISOString()}` +
          ` (revoke: mediaflow review-link ${args} --revoke ${claims.id})`,
      );
    });
}
