/**
 * Can a worker of this task queue do a campaign's work? `run` asks one before it shows progress
 * (workflows/check-access.ts, worker/check-access.ts): the worker reads the stored plan (checking
 * its digest, as every activity does) and creates and removes a probe file in the output folder.
 * A worker on another machine without the shared folder, a read-only mount or a full disk is then
 * named in seconds, with the worker and the path, instead of stopping the campaign later.
 */

import { randomBytes } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { PlanRef } from '../contract/campaign.ts';
import { localFailureKind, PlanUnreadable } from './failure-kind.ts';
import { parseStoredPlan } from './plan-store.ts';

export interface CheckAccessInput {
  readonly plan: PlanRef;
  readonly outputDir: string;
}

export type AccessProblem = 'plan_unreadable' | 'output_unwritable' | 'disk_full';

export type AccessResult =
  | { readonly ok: true; readonly worker: string }
  | {
      readonly ok: false;
      readonly outcome: AccessProblem;
      readonly message: string;
      readonly worker: string;
    };

/** What a probe writes: a few bytes, so a full disk refuses it (an empty file may still fit). */
const PROBE = 'mediaflow access check\n';

export async function checkAccess({ plan, outputDir }: CheckAccessInput): Promise<AccessResult> {
  const worker = `${hostname()}/${process.pid}`;
  const problem = (outcome: AccessProblem, message: string): AccessResult => ({
    ok: false,
    outcome,
    message: `worker ${worker}: ${message}`,
    worker,
  });

  try {
    parseStoredPlan(await readFile(plan.file, 'utf8'), plan);
  } catch (error) {
    const message = new PlanUnreadable(plan, error).message;
    return { ok: false, outcome: 'plan_unreadable', message, worker };
  }

  const probe = join(
    outputDir,
    `.mediaflow-probe-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await writeFile(probe, PROBE, { flag: 'wx' });
  } catch (error) {
    await unlink(probe).catch(() => {});
    const kind = localFailureKind(error);
    return kind === 'disk_full'
      ? problem(
          'disk_full',
          `the output folder ${outputDir} is full (${reasonOf(error)}): free space or grow it`,
        )
      : problem(
          'output_unwritable',
          `cannot write into the output folder ${outputDir} (${reasonOf(error)}): mount it writable for the worker's user`,
        );
  }
  try {
    await unlink(probe);
  } catch (error) {
    return problem(
      'output_unwritable',
      `wrote ${probe} but cannot remove it (${reasonOf(error)}): the worker needs to replace files in the output folder`,
    );
  }
  return { ok: true, worker };
}

/** The errno code when there is one (ENOENT, EROFS, ENOSPC…), else the message. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return error instanceof Error ? error.message : String(error);
}
