/**
 * Which ffmpeg and ffprobe make and read clips. Debian's, found on PATH, unless the deployment
 * points at other builds; a campaign without clips never needs either, so they are looked for only
 * when a derivative has video work, and a missing one is named before anything is paid.
 */
import { INSTALL_HINT, runTool } from './run-tool.ts';

export interface VideoTools {
  readonly ffmpeg: string;
  readonly ffprobe: string;
}

export function videoTools(env: NodeJS.ProcessEnv): VideoTools {
  return {
    ffmpeg: env.MEDIAFLOW_FFMPEG || 'ffmpeg',
    ffprobe: env.MEDIAFLOW_FFPROBE || 'ffprobe',
  };
}

async function runs(command: string): Promise<boolean> {
  try {
    const run = await runTool(command, ['-hide_banner', '-version']);
    return run.exitCode === 0;
  } catch {
    return false;
  }
}

/** Null when both tools run, else one sentence naming what is missing and how to get it. */
export async function videoToolsProblem(tools: VideoTools): Promise<string | null> {
  const [ffmpeg, ffprobe] = await Promise.all([runs(tools.ffmpeg), runs(tools.ffprobe)]);
  const missing = [
    ffmpeg ? null : `ffmpeg (${tools.ffmpeg})`,
    ffprobe ? null : `ffprobe (${tools.ffprobe})`,
  ].filter((name) => name !== null);
  if (missing.length === 0) return null;
  return `${missing.join(' and ')} cannot be run: ${INSTALL_HINT}`;
}

/**
 * The first line of `ffmpeg -version` ("ffmpeg version 5.1.6-0+deb12u1 ..."): another build may
 * encode the same operations to other bytes, so the job key covers it.
 */
export async function videoToolVersion(tools: VideoTools): Promise<string> {
  const run = await runTool(tools.ffmpeg, ['-version']);
  const first = run.stdout.split('\n', 1)[0]?.trim() ?? '';
  if (run.exitCode !== 0 || first === '') {
    throw new Error(
      `${tools.ffmpeg} -version failed: ${run.stderrTail.join(' ') || `exit code ${run.exitCode}`}`,
    );
  }
  return first;
}
