/**
 * `mediaflow export <campaign>`: the campaign's manifest as JSON lines on stdout, made from its
 * records. In S3 mode it also (re)writes `manifest.jsonl` in the bucket, which `run` does at the
 * end of every campaign; a folder's manifest.jsonl is that view already. The output location is
 * the one the campaign was started with (its workflow's input), or `--output`.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Command } from 'commander';
import { z } from 'zod';
import { workflowIdOf } from '../../control/campaign.ts';
import { readDecisions, reviewOf } from '../../records/decisions.ts';
import { materializeManifest } from '../../records/manifest.ts';
import { isS3Url, MANIFEST_KEY } from '../../store/index.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { unknownCampaign } from '../errors.ts';
import { outputOverride } from '../output-location.ts';

/** The part of the campaign workflow's input this command reads; the rest is not its business. */
const StartedWith = z.object({ outputDir: z.string() });

export function register(program: Command): void {
  program
    .command('export <campaign>')
    .description(
      'Print a campaign’s manifest (JSON lines, one per recorded file); in S3 mode also write it to the bucket.',
    )
    .option(
      '--output <location>',
      'the output location (a folder or s3://bucket/prefix) instead of the campaign’s',
    )
    .action(async (campaign: string, options: { output?: string }) => {
      let outputDir = options.output ? outputOverride(options.output) : undefined;
      if (outputDir === undefined) {
        const env = await openEnvironment({ service: false });
        try {
          outputDir = await outputDirOf(env, campaign);
        } finally {
          await env.close();
        }
      }
      // Each line says who decided its take and when (issue 24), read from the decision records.
      const decisions = await readDecisions(outputDir, campaign);
      process.stdout.write(
        await materializeManifest(outputDir, undefined, (entry) => reviewOf(entry, decisions)),
      );
      if (isS3Url(outputDir)) console.error(`wrote ${outputDir}/${MANIFEST_KEY}`);
    });
}

/** Where the campaign was started to write: the input of its workflow's first event. */
async function outputDirOf(env: Environment, campaign: string): Promise<string> {
  try {
    const { history } = await env.client.workflowService.getWorkflowExecutionHistory({
      namespace: env.namespace,
      execution: { workflowId: workflowIdOf(campaign) },
      maximumPageSize: 1,
    });
    const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = StartedWith.safeParse(payload ? defaultPayloadConverter.fromPayload(payload) : undefined);
    if (!input.success) throw new Error(`the workflow of ${campaign} does not say where its outputs are`);
    return input.data.outputDir;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || (error as { code?: unknown }).code === 5) {
      throw unknownCampaign(env, campaign);
    }
    throw error;
  }
}
