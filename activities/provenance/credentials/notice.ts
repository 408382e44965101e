/**
 * The one line a command that delivers outputs (`run` once it has priced what it will run, `worker`
 * once it polls) says about how they are signed, when it is not with a key of the user's own:
 * readers call the local test certificate untrusted, and no key at all means outputs carry their
 * XMP only. Null with the user's key (or a remote signer).
 */
import { SigningKeyError, signingKey } from './signing-key.ts';

export function signingNotice(env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    const key = signingKey(env);
    if (key === null)
      return 'outputs are not signed (no C2PA key): run `npm run setup` for a test certificate, or set MEDIAFLOW_C2PA_CERT and MEDIAFLOW_C2PA_KEY (docs/provenance.md)';
    if (key.kind === 'local' && key.test)
      return 'outputs are signed with the local test certificate: C2PA readers will call their signer untrusted; set MEDIAFLOW_C2PA_CERT and MEDIAFLOW_C2PA_KEY to sign with your own (docs/provenance.md)';
    return null;
  } catch (error) {
    if (error instanceof SigningKeyError)
      return `outputs cannot be signed: ${error.message} (docs/provenance.md)`;
    throw error;
  }
}

/** Says the notice, when there is one, on stderr. */
export function sayHowOutputsAreSigned(env: NodeJS.ProcessEnv = process.env): void {
  const notice = signingNotice(env);
  if (notice) console.error(notice);
}
