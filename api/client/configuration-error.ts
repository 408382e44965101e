/**
 * A setting the user must change (a service URL, a size cap): the CLI prints its message as one
 * line instead of a stack (cli/main.ts), whichever command, client or activity found it.
 */
export class ConfigurationError extends Error {}
