/**
 * What a failed ffmpeg run tells the user: the last lines it wrote to stderr (ffmpeg ends on the
 * cause), blamed on the operation whose filter, input or file the message names, else on none.
 */
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { VideoOperation } from '../operations.ts';
import type { FfmpegRun } from './ffmpeg-arguments.ts';

/** ffmpeg's name for a filter of a parsed graph, in the `[Parsed_drawtext_3 @ 0x...]` log prefix. */
const PARSED_FILTER = /Parsed_[a-z0-9_]+?_(\d+) @/g;
/** ffmpeg's name for a stream of an input (`stream #1:0`, `input stream 1:0`): input 0 is the clip. */
const INPUT_STREAM = /stream #?(\d+):\d+/g;

/** The number the last match of `pattern` captures in `text`, or null. */
function lastNumber(pattern: RegExp, text: string): number | null {
  const captured = [...text.matchAll(pattern)].at(-1)?.[1];
  return captured === undefined ? null : Number(captured);
}

function blamed(run: FfmpegRun, operations: readonly VideoOperation[], stderr: string): OperationAt | null {
  const filter = lastNumber(PARSED_FILTER, stderr);
  const stream = lastNumber(INPUT_STREAM, stderr);
  const byFilter = filter === null ? null : run.graph.ownerOf(filter);
  const byStream = stream === null ? null : (run.sideInputs[stream - 1]?.owner ?? null);
  const byPath = run.sideInputs.find((input) => stderr.includes(input.path))?.owner ?? null;
  return operationAt(operations, byFilter ?? byStream ?? byPath);
}

/** The operation at `index` as a DeriveError names it. */
export function operationAt(operations: readonly VideoOperation[], index: number | null): OperationAt | null {
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
