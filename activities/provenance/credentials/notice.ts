/**
 * What a command that delivers outputs (`run` once it has priced what it will run, `worker` once it
 * polls) says about how they are signed, when it is not with a key of the user's own: readers call
 * the local test certificate untrusted, and no key at all means outputs carry their XMP only. In
 * lines of at most 80 columns (the live frame's width). Empty with the user's key (or a remote signer).
 */
import { SigningKeyError, signingKey } from './signing-key.ts';

export function signingNotice(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    const key = signingKey(env);
    if (key === null)
      return [
        'outputs are not signed: no C2PA key (`npm run setup` makes a test certificate);',
        'or set MEDIAFLOW_C2PA_CERT and MEDIAFLOW_C2PA_KEY (docs/provenance.md)',
      ];
    if (key.kind === 'local' && key.test)
      return [
        'outputs are signed with a test certificate: readers will call them untrusted;',
        'sign with yours: MEDIAFLOW_C2PA_CERT, MEDIAFLOW_C2PA_KEY (docs/provenance.md)',
      ];
    return [];
  } catch (error) {
    if (error instanceof SigningKeyError)
      return ['outputs cannot be signed (docs/provenance.md):', error.message];
    throw error;
  }
}

/** Says the notice, when there is one, on stderr. */
export function sayHowOutputsAreSigned(env: NodeJS.ProcessEnv = process.env): void {
  for (const line of signingNotice(env)) console.error(line);
}
