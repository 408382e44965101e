import type { Command } from 'commander';
import { register as cancel } from './cancel.ts';
import { register as decide } from './decide.ts';
import { register as emulator } from './emulator.ts';
import { register as estimate } from './estimate.ts';
import { register as exportManifest } from './export.ts';
import { register as plan } from './plan.ts';
import { register as report } from './report.ts';
import { register as review } from './review.ts';
import { register as run } from './run.ts';
import { register as stack } from './stack.ts';
import { register as status } from './status.ts';
import { register as validate } from './validate.ts';
import { register as worker } from './worker.ts';

/** Each command module exports one `register(program)`; the order here is the order in --help. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  validate,
  plan,
  estimate,
  run,
  status,
  review,
  decide,
  report,
  cancel,
  exportManifest,
  worker,
  stack,
  emulator,
];
