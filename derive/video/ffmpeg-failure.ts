/**
 * What a failed ffmpeg run tells the user: the last lines it wrote to stderr (ffmpeg ends on the
 * cause), blamed on the operation whose filter or file the message names, else on none.
 */
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { VideoOperation } from '../operations.ts';
import type { FfmpegRun } from './ffmpeg-arguments.ts';

/** ffmpeg's name for a filter of a parsed graph, in the `[Parsed_drawtext_3 @ 0x...]` log prefix. */
const PARSED_FILTER = /Parsed_[a-z0-9_]+?_(\d+) @/g;

function blamed(run: FfmpegRun, operations: readonly VideoOperation[], stderr: string): OperationAt | null {
  const filters = [...stderr.matchAll(PARSED_FILTER)];
  const lastFilter = filters.at(-1)?.[1];
  const byFilter = lastFilter === undefined ? null : run.graph.ownerOf(Number(lastFilter));
  const byFile = run.sideInputs.find((input) => stderr.includes(input.path))?.owner ?? null;
  const index = byFilter ?? byFile;
  const op = index === null ? undefined : operations[index];
  return index === null || op === undefined ? null : { index, name: op.op };
}

export function ffmpegFailure(
  run: FfmpegRun,
  operations: readonly VideoOperation[],
  stderrTail: readonly string[],
  exitCode: number | null,
): DeriveError {
  const stderr = stderrTail.join('\n');
  const said = stderrTail.map((line) => line.trim()).join(' / ');
  return new DeriveError(
    blamed(run, operations, stderr),
    `ffmpeg failed (${said || `exit code ${exitCode}`})`,
  );
}
