/**
 * `mediaflow review <campaign>`: the contact sheet of a campaign's reviewed steps in the browser;
 * `mediaflow review` alone: the inbox, every running campaign with takes awaiting review, each a
 * link to its sheet on the same server. Served until Ctrl-C on loopback (or `--listen ADDR`),
 * every path behind a signed link; the operator's own, `decide` for a day, is printed and opened
 * (docs/review.md).
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { runningCampaigns } from '../../control/running-campaigns.ts';
import { startInboxServer } from '../../review/inbox-server.ts';
import { issueLink, readLinkKeys } from '../../review/link-keys.ts';
import { INBOX_SCOPE } from '../../review/links.ts';
import { LiveModel } from '../../review/live.ts';
import { type ReviewServer, startReviewServer } from '../../review/server.ts';
import { openCampaign } from '../campaign-pages.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { openInBrowser } from '../open-browser.ts';
import { wholeNumber } from '../options.ts';
import { announceServing } from '../review-address.ts';
import { everyAddress, inboxKeysFile, linkKeysFile, listenAddress } from './review-link.ts';

interface ReviewOptions {
  port?: number;
  listen?: string;
  publicUrl?: string;
  open: boolean;
}

/** Where to listen, and the Host headers answered besides (the public URL's). */
type Listen = ReturnType<typeof listenAddress> & { allowedHosts: string[] };

/** The operator's own link: `decide`, for a day, under the local user's name. */
async function ownLink(keysFile: string, scope: string): Promise<string> {
  const own = await issueLink(keysFile, {
    campaign: scope,
    name: userInfo().username || 'operator',
    role: 'decide',
    exp: Date.now() + 86_400_000,
  });
  return own.token;
}

/** Starts a server, saying a port in use in words; everything opened is closed on failure. */
async function started(
  listen: Listen,
  start: () => Promise<ReviewServer>,
  closeAll: () => Promise<void>,
): Promise<ReviewServer> {
  try {
    return await start();
  } catch (error) {
    await closeAll();
    if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
      throw new UserError(
        `port ${listen.port} on ${listen.host} is in use`,
        'choose another with --port, or leave it out',
      );
    }
    throw error;
  }
}

/** The inbox: every campaign of this stack awaiting review, under an inbox link. */
async function serveInbox(env: Environment, listen: Listen) {
  const keysFile = inboxKeysFile();
  const owner = await ownLink(keysFile, INBOX_SCOPE);
  const server = await started(
    listen,
    () =>
      startInboxServer({
        ...listen,
        access: { campaign: INBOX_SCOPE, keys: () => readLinkKeys(keysFile) },
        campaigns: () => runningCampaigns(env.client),
        open: (campaign) => openCampaign(env, campaign),
        ownerToken: owner,
      }),
    () => env.close(),
  );
  return { server, what: 'the review inbox', linkCommand: 'review-link --inbox', close: async () => {} };
}

export function register(program: Command): void {
  program
    .command('review [campaign]')
    .description(
      'Serve the contact sheet of a campaign’s reviewed steps on 127.0.0.1 (approve, reject or regenerate from the keyboard); without a campaign, the inbox of every campaign awaiting review.',
    )
    .option('--port <n>', 'port to listen on (default: a free one)', wholeNumber)
    .option('--listen <addr>', 'address to serve on, e.g. 0.0.0.0:8470 (default 127.0.0.1)')
    .option(
      '--public-url <url>',
      'the address reviewers use (a reverse proxy’s), e.g. https://review.example.com',
    )
    .option('--no-open', 'only print the URL')
    .action(async (campaign: string | undefined, options: ReviewOptions) => {
      const listen = listenAddress(options.listen, options.port);
      if (everyAddress(listen.host) && !options.publicUrl) {
        throw new UserError(
          `--listen ${options.listen}: every address, but which one do reviewers use?`,
          'add --public-url http://<this host>:<port> (or the reverse proxy’s https address); requests naming another host are refused',
        );
      }
      const publicHost = options.publicUrl ? new URL(options.publicUrl).host : undefined;
      const where = { ...listen, allowedHosts: publicHost ? [publicHost] : [] };
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      const serving = campaign ? await serveCampaign(env, campaign, where) : await serveInbox(env, where);
      const { server } = serving;
      // So `review-link` prints whole links while this server runs (cli/review-address.ts).
      const forget = await announceServing(campaign ?? INBOX_SCOPE, options.publicUrl ?? server.origin);
      // The token is the page's only key: printed here, never logged anywhere else.
      console.log(`Reviewing ${campaign ?? 'the inbox'} at ${server.url}`);
      if (listen.host !== '127.0.0.1') {
        console.error(
          `Serving ${serving.what} on ${listen.host}:${new URL(server.origin).port}; give others links from 'mediaflow ${serving.linkCommand} --name NAME --url ${options.publicUrl ?? server.origin}'.`,
        );
      }
      console.error('Ctrl-C stops the page; decisions already applied stay.');
      if (options.open) openInBrowser(server.url);
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await forget();
      await server.close();
      await serving.close();
      await env.close();
      // A campaign's helper worker may still run what decisions started (an approved still's
      // video) after its grace: left as a detach leaves it, and the process ends now, not with it.
      process.exit(process.exitCode ?? 0);
    });
}

/** One campaign's sheet, under that campaign's links. */
async function serveCampaign(env: Environment, campaign: string, listen: Listen) {
  const opened = await openCampaign(env, campaign).catch(async (error: unknown) => {
    await env.close();
    throw error;
  });
  const keysFile = linkKeysFile(campaign);
  const owner = await ownLink(keysFile, campaign);
  const server = await started(
    listen,
    () =>
      startReviewServer({
        live: new LiveModel(opened.load),
        outputDir: opened.start.outputDir,
        send: opened.send,
        ...listen,
        access: { campaign, keys: () => readLinkKeys(keysFile) },
        ownerToken: owner,
      }),
    async () => {
      await opened.close();
      await env.close();
    },
  );
  // Ready by the first decision; a campaign that has ended simply has none to take.
  opened.prepare().catch(() => {});
  return { server, what: campaign, linkCommand: `review-link ${campaign}`, close: () => opened.close() };
}
