/**
 * Can a worker of this task queue do a campaign's work? `run` asks one before it shows progress
 * (workflows/runtime/check-access.ts, control/check-access.ts): the worker reads the stored plan (checking
 * its digest, as every activity does) and creates and removes a probe in the output location (a
 * folder or a bucket). A worker on another machine without the shared folder or the bucket's
 * credentials, a read-only mount or a full disk is then named in seconds, with the worker and the
 * location, instead of stopping the campaign later.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PlanRef } from '../contract/campaign.ts';
import { readPlan } from '../records/plan-store.ts';
import type { Store } from '../store/index.ts';
import { localFailureKind, PlanUnreadable } from './failure-kind.ts';

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

export async function checkAccess(
  { plan, outputDir }: CheckAccessInput,
  storeOf: (location: string) => Store,
): Promise<AccessResult> {
  const worker = `${hostname()}/${process.pid}`;
  const problem = (outcome: AccessProblem, message: string): AccessResult => ({
    ok: false,
    outcome,
    message: `worker ${worker}: ${message}`,
    worker,
  });

  try {
    // The head and the first page: the reads every campaign activity starts with.
    await (await readPlan(plan, storeOf)).jobs(0, 1);
  } catch (error) {
    const message = new PlanUnreadable(plan, error).message;
    return { ok: false, outcome: 'plan_unreadable', message, worker };
  }

  const store = storeOf(outputDir);
  const probe = `.mediaflow-probe-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await store.createOnce(probe, PROBE);
  } catch (error) {
    await store.remove(probe).catch(() => {});
    const kind = localFailureKind(error);
    return kind === 'disk_full'
      ? problem(
          'disk_full',
          `the output folder ${outputDir} is full (${reasonOf(error)}): free space or grow it`,
        )
      : problem(
          'output_unwritable',
          `cannot write into the output location ${outputDir} (${reasonOf(error)}): make it writable for the worker (a folder mounted writable for its user, or S3 credentials that may write the bucket)`,
        );
  }
  try {
    await store.remove(probe);
  } catch (error) {
    return problem(
      'output_unwritable',
      `wrote ${probe} in ${outputDir} but cannot remove it (${reasonOf(error)}): the worker needs to replace files there`,
    );
  }
  return { ok: true, worker };
}

/** The errno code when there is one (ENOENT, EROFS, ENOSPC…), else the error's name and message. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
