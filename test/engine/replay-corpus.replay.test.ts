/**
 * Replays every history of test/replay-corpus/ (real campaigns of every shape, recorded by
 * scripts/record-replay-corpus.ts with this engine generation) on the current workflow code: a
 * change that decides differently on a campaign already in flight fails here, named by the
 * history it breaks, instead of stalling that campaign when upgraded workers take it over. Such
 * a change goes behind patched() or into a new generation, which records the corpus anew
 * (contract/engine.ts; docs/engine.md, "Upgrades").
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { quietRuntime } from '../../bench/lib/quiet-runtime.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';

const CORPUS = fileURLToPath(new URL('../replay-corpus/', import.meta.url));
const FILES = readdirSync(CORPUS)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('replay corpus', () => {
  beforeAll(quietRuntime);

  it('holds histories', () => {
    expect(FILES.length).toBeGreaterThan(0);
  });

  for (const file of FILES) {
    it(`${file} replays on the current workflow code`, async () => {
      const history = historyFromJSON(JSON.parse(await readFile(`${CORPUS}${file}`, 'utf8')));
      await Worker.runReplayHistory({ workflowBundle: suiteWorkflowBundle() }, history);
    }, 120_000);
  }
});
