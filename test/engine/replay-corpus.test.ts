/**
 * Replays every history of test/replay-corpus/ (real campaigns of every shape, recorded by
 * scripts/record-replay-corpus.ts) on the current workflow code: a change that decides
 * differently on a campaign already in flight fails here, named by the history it breaks,
 * instead of stalling that campaign when upgraded workers take it over (ARCHITECTURE.md, decision 10).
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/workflow-bundle.ts';

const CORPUS = fileURLToPath(new URL('../replay-corpus/', import.meta.url));
const FILES = readdirSync(CORPUS)
  .filter((file) => file.endsWith('.json'))
  .sort();

/**
 * Histories kept in the corpus although they fail on the current code, each with the reason. They
 * are replayed all the same, and the test says when one starts to pass, so the fix that makes it
 * pass also moves it to the ordinary files.
 */
const KNOWN_FAILING: Readonly<Record<string, { readonly why: string; readonly atEvent: number }>> = {
  /**
   * Written by a worker that answered a legacy query (`mediaflow run` polled progress) before it
   * had the run cached: Core applied part of the next task's events to answer it, the loop picked
   * a batch then, and the task carried that command with the one picked after the rest arrived.
   * No code replays both from one activation (docs/engine.md, "Progress without queries"). Every
   * command before event 185 must still match: that proves the engine decides as it did.
   */
  'resume-after-404-bug.json': {
    why: 'two batches in one task, from a query that split its events (Core; no client queries any more)',
    atEvent: 185,
  },
};

describe('replay corpus', () => {
  beforeAll(() => {
    // Replay workers log every state change at INFO: only problems are worth hearing here.
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Installed already by another suite in this process.
    }
  });

  it('holds histories', () => {
    expect(FILES.length).toBeGreaterThan(0);
  });

  for (const file of FILES) {
    const known = KNOWN_FAILING[file];
    const title = known
      ? `${file} still fails as known, at event ${known.atEvent}: ${known.why}`
      : `${file} replays on the current workflow code`;
    it(title, async () => {
      const history = historyFromJSON(JSON.parse(await readFile(`${CORPUS}${file}`, 'utf8')));
      const replay = Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history);
      if (known) {
        // Failing for its known reason, not any other: when it replays, this says to move it.
        await expect(replay, `${file} now replays: take it out of KNOWN_FAILING`).rejects.toMatchObject({
          name: 'DeterminismViolationError',
          message: expect.stringContaining(
            `No command scheduled for event HistoryEvent(id: ${known.atEvent},`,
          ),
        });
      } else {
        await replay;
      }
    }, 120_000);
  }
});
