/**
 * One style for every `--json` output (docs/cli.md, "JSON output"): keys in snake_case, the
 * style most of them had (`awaiting_review`, `output_dir`, `total_usd`), and money as a decimal
 * string of dollars without a sign (`"1.44"`), so no float and no currency symbol reaches a
 * script. The progress the workflow publishes keeps its own field names (contract/progress.ts:
 * memos and histories carry them); they are renamed here, on the way out, never in the contract.
 */
import { formatUsd } from '../api/money.ts';

/**
 * Fields whose numbers are micro-dollars in what the commands hand over (the campaign's
 * progress): written as decimal strings. Fields already strings (`*_usd`) are left as they are.
 */
const MONEY = new Set(['spent', 'committed', 'in_flight', 'budget', 'campaign_spent']);

/** Values under these keys are the user's or the service's data (a job's model input): kept as given. */
const VERBATIM = new Set(['input']);

export function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function styled(value: unknown, key: string | null): unknown {
  if (key !== null && VERBATIM.has(key)) return value;
  if (typeof value === 'number' && key !== null && MONEY.has(key)) return formatUsd(value);
  if (Array.isArray(value)) return value.map((item) => styled(item, null));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => {
      const renamed = snakeCase(name);
      return [renamed, styled(item, renamed)];
    }),
  );
}

/** `value` in the one JSON style, indented, with a final newline. */
export function jsonOutput(value: unknown): string {
  return `${JSON.stringify(styled(value, null), null, 2)}\n`;
}
