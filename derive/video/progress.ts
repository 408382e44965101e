/**
 * ffmpeg's `-progress pipe:1` report, `key=value` lines in blocks, read as the fraction of the
 * output made so far. `out_time_us` counts the output's timeline in microseconds (its twin
 * `out_time_ms` does too, despite the name); the block ends with `progress=end` once ffmpeg is done.
 */

/** The fraction (0–1) a progress line tells, or null for the lines that tell none. */
export function progressFraction(line: string, expectedSeconds: number): number | null {
  const [key, value] = line.split('=', 2);
  if (key === 'progress' && value === 'end') return 1;
  if (key !== 'out_time_us' || value === undefined || expectedSeconds <= 0) return null;
  const microseconds = Number(value);
  if (!Number.isFinite(microseconds) || microseconds < 0) return null;
  return Math.min(1, microseconds / 1_000_000 / expectedSeconds);
}
