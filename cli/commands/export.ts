/**
 * `mediaflow export <campaign>`: the current plan's outputs as JSON lines on stdout, one per job,
 * made from the records (records/manifest-view.ts: a garbled manifest.jsonl loses nothing here);
 * `--superseded` adds the earlier takes and edited-away jobs, each marked. In S3 mode it also
 * (re)writes `manifest.jsonl` in the bucket, which `run` does at the end of every campaign (and on
 * a folder, when the file differs). The output location is the one the campaign was started with
 * (its workflow's input), or `--output`.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Command } from 'commander';
import { z } from 'zod';
import { workflowIdOf } from '../../control/campaign.ts';
import { readTakeDecisions } from '../../records/decisions.ts';
import { withDecisions } from '../../records/derivative-decisions.ts';
import { readDerivatives } from '../../records/derivatives.ts';
import { manifestLines, manifestText, rebuildManifest } from '../../records/manifest-view.ts';
import { isS3Url, MANIFEST_KEY, openStore } from '../../store/index.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { unknownCampaign } from '../errors.ts';
import { outputOverride } from '../output-location.ts';

interface ExportOptions {
  readonly output?: string;
  readonly superseded?: boolean;
  readonly derivatives?: boolean;
}

/** The part of the campaign workflow's input this command reads; the rest is not its business. */
const StartedWith = z.object({ outputDir: z.string() });

export function register(program: Command): void {
  program
    .command('export <campaign>')
    .description(
      'Print a campaign’s manifest (JSON lines, one per output of its current plan); in S3 mode also write it to the bucket.',
    )
    .option(
      '--superseded',
      'also print earlier takes and outputs of jobs edited away, each marked "superseded": true',
    )
    .option(
      '--derivatives',
      'print the derive steps’ files instead: one line each, with its parent, its operations and, for one that failed, why',
    )
    .option(
      '--output <location>',
      'the output location (a folder or s3://bucket/prefix) instead of the campaign’s',
    )
    .action(async (campaign: string, options: ExportOptions) => {
      let outputDir = options.output ? outputOverride(options.output) : undefined;
      if (outputDir === undefined) {
        const env = await openEnvironment({ service: false });
        try {
          outputDir = await outputDirOf(env, campaign);
        } finally {
          await env.close();
        }
      }
      const store = openStore(outputDir);
      if (options.derivatives) {
        const sorted = (await readDerivatives(store)).sort(
          (a, b) => a.step.localeCompare(b.step) || a.parent.file.localeCompare(b.parent.file),
        );
        // A reviewed derivative carries its decision; a rejected one is not delivered, so not listed.
        const takes = new Map(
          (await manifestLines(store))
            .filter((line) => !line.superseded)
            .map((line) => [line.key, line.take]),
        );
        const records = withDecisions(sorted, await readTakeDecisions(campaign, store), (key) =>
          takes.get(key),
        );
        process.stdout.write(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
        return;
      }
      // Each line says who decided its take and when, from the decision records (manifest-view.ts).
      const lines = isS3Url(outputDir)
        ? (await rebuildManifest(outputDir, store)).lines
        : await manifestLines(store);
      process.stdout.write(
        manifestText(options.superseded ? lines : lines.filter((line) => !line.superseded)),
      );
      if (isS3Url(outputDir)) console.error(`wrote ${outputDir}/${MANIFEST_KEY}`);
    });
}

/** Where the campaign was started to write: the input of its workflow's first event. */
export async function outputDirOf(env: Environment, campaign: string): Promise<string> {
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
