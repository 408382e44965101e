/**
 * Whether the user asked for stack traces (DEBUG=mediaflow). Its own module, importing nothing,
 * so bin/mediaflow.js can ask before the CLI loads (it decides whether Node keeps source maps).
 */

/** DEBUG follows the `debug` package's convention: a comma or space separated list of names. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const names = (env.DEBUG ?? '').split(/[\s,]+/);
  return names.some((name) => name === '*' || name === 'mediaflow' || name.startsWith('mediaflow:'));
}
