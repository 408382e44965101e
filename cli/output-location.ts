/** `--output <location>` of `run` and `export`: a folder (relative to the current one) or an S3 URL. */
import { outputLocation } from '../plan/index.ts';
import { parseLocation } from '../store/index.ts';
import { UserError } from './errors.ts';

/** The location `--output` names, checked now rather than by a worker later. */
export function outputOverride(output: string): string {
  const location = outputLocation(process.cwd(), output);
  try {
    parseLocation(location);
  } catch (error) {
    throw new UserError(`--output ${(error as Error).message}`, 'give a folder, or s3://<bucket>/<prefix>');
  }
  return location;
}
