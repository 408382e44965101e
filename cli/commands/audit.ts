/**
 * `mediaflow audit <spec|campaign> [--json]`: the campaign's records against the service's own
 * account (records/reconcile.ts). Every prediction the campaign made is looked up on the service
 * (its `credits_used`), every charge is matched to a job and take or listed as a refund to ask
 * for, and the account's usage (`GET /v1/account/usage`, every campaign and tool on the key) is
 * shown beside them. Exit 1 on any mismatch, or while predictions still run: finance runs it
 * after a campaign ends.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import pLimit from 'p-limit';
import { createServiceClient, retryRead, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import { formatDollars, formatUsd, type Micros } from '../../api/money.ts';
import { campaignHandle } from '../../control/campaign.ts';
import { readClaims } from '../../records/claims.ts';
import { Manifest } from '../../records/manifest.ts';
import {
  type CampaignRecords,
  predictionsNamed,
  type Reconciliation,
  reconcile,
  type ServicePrediction,
} from '../../records/reconcile.ts';
import { readRefusals } from '../../records/refusals.ts';
import { readUnsaved } from '../../records/unsaved.ts';
import { campaignStart } from '../../review/sources.ts';
import { openEnvironment } from '../environment.ts';
import { unknownCampaign } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { jsonOutput } from '../json-output.ts';
import { loadPlanOrReport } from './validate.ts';

/** Lookups in flight: an audit must not take the campaign's share of the request rate. */
const LOOKUPS = 4;

export interface CampaignAudit extends Reconciliation {
  readonly campaign: string;
  /** The whole account's usage as the service reports it: every campaign and tool on the key. */
  readonly account: { readonly predictions: number; readonly credits: Micros };
}

type AuditClient = Pick<ServiceClient, 'predictions' | 'account'>;

/** The campaign's records, the service's figure for each prediction they name, reconciled. */
export async function auditCampaign(
  service: AuditClient,
  outputDir: string,
  campaign: string,
  names: ReadonlyMap<string, string> = new Map(),
): Promise<CampaignAudit> {
  const manifest = await Manifest.open(outputDir);
  const records: CampaignRecords = {
    takes: await manifest.takes(),
    refusals: [...(await readRefusals(outputDir, campaign, manifest.store)).values()].flat(),
    unsaved: await readUnsaved(manifest.store, campaign),
    claims: await readClaims(manifest.store, campaign),
    names,
  };
  const limit = pLimit(LOOKUPS);
  const found = new Map<string, ServicePrediction | null>();
  await Promise.all(
    predictionsNamed(records).map((id) =>
      limit(async () => {
        const prediction = await retryRead(() => service.predictions.get(id)).catch((error: unknown) => {
          // Past the service's retention: the records cannot be checked against it, only shown.
          if (error instanceof ServiceError && error.status === 404) return null;
          throw error;
        });
        found.set(id, prediction && { id, status: prediction.status, charged: prediction.creditsUsed });
      }),
    ),
  );
  const usage = await retryRead(() => service.account.usage());
  return {
    campaign,
    ...reconcile(records, found),
    account: { predictions: usage.predictions, credits: usage.credits },
  };
}

export function auditClean(audit: CampaignAudit): boolean {
  return audit.mismatches.length === 0 && audit.processing.length === 0;
}

const KIND_WORDS = {
  take: 'take',
  refused: 'refused output',
  unsaved: 'paid, never saved',
  failed: 'failed, charged',
  unexplained: 'no record',
} as const;

export function auditText(audit: CampaignAudit): string {
  const lines = [`${audit.campaign}: ${audit.charges.length} charges`];
  const whats = audit.charges.map(
    (charge) => `${charge.name ?? charge.key ?? '?'}${charge.take === null ? '' : ` take ${charge.take}`}`,
  );
  const width = Math.max(0, ...whats.map((what) => what.length));
  audit.charges.forEach((charge, i) => {
    lines.push(
      `  ${whats[i]!.padEnd(width)}  ${formatDollars(charge.charged).padStart(8)}  ${KIND_WORDS[charge.kind]} (prediction ${charge.predictionId})`,
    );
  });
  const refunds = audit.refundable.reduce((sum, charge) => sum + charge.charged, 0);
  if (audit.refundable.length > 0)
    lines.push(
      `to ask the provider to refund: ${formatDollars(refunds)} for ${audit.refundable.length} (${audit.refundable
        .map((charge) => charge.predictionId)
        .join(', ')})`,
    );
  lines.push(
    `records: $${formatUsd(audit.recordedTotal)}; service, this campaign's predictions: $${formatUsd(audit.chargedTotal)}; account usage (every campaign on the key): $${formatUsd(audit.account.credits)} over ${audit.account.predictions} predictions`,
  );
  if (audit.forgotten.length > 0)
    lines.push(
      `not verifiable, the service no longer has them (the records' figures stand): ${audit.forgotten.join(', ')}`,
    );
  if (audit.processing.length > 0)
    lines.push(
      `still running at the service (audit again when the campaign ends): ${audit.processing.join(', ')}`,
    );
  for (const mismatch of audit.mismatches) lines.push(`mismatch: ${mismatch}`);
  lines.push(auditClean(audit) ? 'ok: the records and the service agree' : 'not reconciled');
  return `${lines.join('\n')}\n`;
}

export function auditJson(audit: CampaignAudit) {
  return {
    campaign: audit.campaign,
    ok: auditClean(audit),
    recorded_usd: formatUsd(audit.recordedTotal),
    charged_usd: formatUsd(audit.chargedTotal),
    account: { predictions: audit.account.predictions, credits_usd: formatUsd(audit.account.credits) },
    charges: audit.charges.map((charge) => ({
      prediction_id: charge.predictionId,
      key: charge.key,
      name: charge.name,
      take: charge.take,
      kind: charge.kind,
      charged_usd: formatUsd(charge.charged),
      recorded_usd: formatUsd(charge.recorded),
    })),
    refundable: audit.refundable.map((charge) => charge.predictionId),
    mismatches: audit.mismatches,
    processing: audit.processing,
    forgotten: audit.forgotten,
  };
}

export function register(program: Command): void {
  program
    .command('audit <spec|campaign>')
    .description(
      "Reconcile the campaign's records with the service's account: every charge matched to a job and take, refunds to ask for, charges no record explains (exit 1 on any mismatch).",
    )
    .option('--json', 'print the reconciliation as JSON (money as decimal strings)')
    .action(async (target: string, options: { json?: boolean }) => {
      const env = await openEnvironment();
      const service = createServiceClient(env.service);
      try {
        const where = existsSync(target) ? await fromSpec(target) : await fromCampaign(env, target);
        if (!where) {
          process.exitCode = EXIT.error;
          return;
        }
        const audit = await auditCampaign(service, where.outputDir, where.campaign, where.names);
        process.stdout.write(options.json ? jsonOutput(auditJson(audit)) : auditText(audit));
        if (!auditClean(audit)) process.exitCode = EXIT.error;
      } finally {
        await service.close();
        await env.close();
      }
    });
}

async function fromSpec(spec: string) {
  const plan = await loadPlanOrReport(spec);
  if (!plan) return null;
  const names = new Map(plan.jobs.map((job) => [job.key, job.name]));
  return { outputDir: plan.outputDir, campaign: plan.campaign, names };
}

async function fromCampaign(env: Awaited<ReturnType<typeof openEnvironment>>, campaign: string) {
  const start = await campaignStart(env.client, campaignHandle(env.client, campaign)).catch(() => {
    throw unknownCampaign(env, campaign);
  });
  return { outputDir: start.outputDir, campaign, names: new Map<string, string>() };
}
