/**
 * `mediaflow review <campaign>`: the contact sheet of a campaign's reviewed steps in the browser,
 * served on loopback behind a random token until Ctrl-C (docs/review.md).
 */
import type { Command } from 'commander';
import { LiveModel } from '../../review/live.ts';
import { startReviewServer } from '../../review/server.ts';
import { openCampaign } from '../campaign-pages.ts';
import { openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { openInBrowser } from '../open-browser.ts';
import { wholeNumber } from '../options.ts';

interface ReviewOptions {
  port?: number;
  open: boolean;
}

export function register(program: Command): void {
  program
    .command('review <campaign>')
    .description(
      'Serve the contact sheet of a campaign’s reviewed steps on 127.0.0.1: approve, reject or regenerate from the keyboard.',
    )
    .option('--port <n>', 'port to listen on (default: a free one)', wholeNumber)
    .option('--no-open', 'only print the URL')
    .action(async (campaign: string, options: ReviewOptions) => {
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      const opened = await openCampaign(env, campaign).catch(async (error: unknown) => {
        await env.close();
        throw error;
      });
      const server = await startReviewServer({
        live: new LiveModel(opened.load),
        outputDir: opened.start.outputDir,
        send: opened.send,
        port: options.port,
      }).catch(async (error: unknown) => {
        await opened.close();
        await env.close();
        if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
          throw new UserError(
            `port ${options.port} on 127.0.0.1 is in use`,
            'choose another with --port, or leave it out',
          );
        }
        throw error;
      });
      // The token is the page's only key: printed here, never logged anywhere else.
      console.log(`Reviewing ${campaign} at ${server.url}`);
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
