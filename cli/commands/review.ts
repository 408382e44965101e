/**
 * `mediaflow review <campaign>`: the contact sheet of a campaign's reviewed steps in the browser,
 * served until Ctrl-C on loopback (or `--listen ADDR`), every path behind a signed link; the
 * operator's own, `decide` for a day, is printed and opened (docs/review.md).
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { issueLink, readLinkKeys } from '../../review/link-keys.ts';
import { LiveModel } from '../../review/live.ts';
import { startReviewServer } from '../../review/server.ts';
import { openCampaign } from '../campaign-pages.ts';
import { openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { openInBrowser } from '../open-browser.ts';
import { wholeNumber } from '../options.ts';
import { linkKeysFile, listenAddress } from './review-link.ts';

interface ReviewOptions {
  port?: number;
  listen?: string;
  publicUrl?: string;
  open: boolean;
}

export function register(program: Command): void {
  program
    .command('review <campaign>')
    .description(
      'Serve the contact sheet of a campaign’s reviewed steps on 127.0.0.1: approve, reject or regenerate from the keyboard.',
    )
    .option('--port <n>', 'port to listen on (default: a free one)', wholeNumber)
    .option('--listen <addr>', 'address to serve on, e.g. 0.0.0.0:8470 (default 127.0.0.1)')
    .option(
      '--public-url <url>',
      'the address reviewers use (a reverse proxy’s), e.g. https://review.example.com',
    )
    .option('--no-open', 'only print the URL')
    .action(async (campaign: string, options: ReviewOptions) => {
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      const opened = await openCampaign(env, campaign).catch(async (error: unknown) => {
        await env.close();
        throw error;
      });
      const listen = listenAddress(options.listen, options.port);
      if (['0.0.0.0', '::'].includes(listen.host) && !options.publicUrl) {
        await opened.close();
        await env.close();
        throw new UserError(
          `--listen ${options.listen}: every address, but which one do reviewers use?`,
          'add --public-url http://<this host>:<port> (or the reverse proxy’s https address); requests naming another host are refused',
        );
      }
      const keysFile = linkKeysFile(campaign);
      const own = await issueLink(keysFile, {
        campaign,
        name: userInfo().username || 'operator',
        role: 'decide',
        exp: Date.now() + 86_400_000,
      });
      const publicHost = options.publicUrl ? new URL(options.publicUrl).host : undefined;
      const server = await startReviewServer({
        live: new LiveModel(opened.load),
        outputDir: opened.start.outputDir,
        send: opened.send,
        ...listen,
        allowedHosts: publicHost ? [publicHost] : [],
        access: { campaign, keys: () => readLinkKeys(keysFile) },
        ownerToken: own.token,
      }).catch(async (error: unknown) => {
        await opened.close();
        await env.close();
        if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
          throw new UserError(
            `port ${listen.port} on ${listen.host} is in use`,
            'choose another with --port, or leave it out',
          );
        }
        throw error;
      });
      // The token is the page's only key: printed here, never logged anywhere else.
      console.log(`Reviewing ${campaign} at ${server.url}`);
      if (listen.host !== '127.0.0.1') {
        console.error(
          `Serving on ${listen.host}:${new URL(server.origin).port}; give others links from 'mediaflow review-link ${campaign} --name NAME --url ${options.publicUrl ?? server.origin}'.`,
        );
      }
      console.error('Ctrl-C stops the page; decisions already applied stay.');
      if (options.open) openInBrowser(server.url);
      // Ready by the first decision; a campaign that has ended simply has none to take.
      opened.prepare().catch(() => {});
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await server.close();
      await opened.close();
      await env.close();
    });
}
