/**
 * How to name a mediaflow command in a hint: the way the user reached this process, so a hint
 * can be copied and run as is. `npm run mediaflow -- status x` inside the repository (where
 * `mediaflow` is not on PATH), `mediaflow status x` through an installed bin.
 */
import path from 'node:path';

export function commandPrefix(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
): string {
  // npm sets this for the script it runs; other npm scripts (npm test) spawning us set their own name.
  if (env.npm_lifecycle_event === 'mediaflow') return 'npm run mediaflow --';
  // An installed bin is a link named `mediaflow`; Node keeps the link's path in argv[1].
  const script = argv[1] === undefined ? '' : path.basename(argv[1]);
  if (script === 'mediaflow' || script === 'mediaflow.cmd') return 'mediaflow';
  // `node bin/mediaflow.js`, `tsx cli/main.ts`: inside the repository, where the README's form works.
  return 'npm run mediaflow --';
}

/** `npm run mediaflow -- status spring-launch`, or `mediaflow status spring-launch`. */
export function command(...args: readonly string[]): string {
  return [commandPrefix(), ...args].join(' ');
}
