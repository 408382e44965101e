import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { campaignJsonSchemaText } from '../../plan/schema.ts';

it('specs/campaign.schema.json matches the zod schema (run `npm run schema` after changing it)', () => {
  const committed = readFileSync(
    path.resolve(import.meta.dirname, '../../specs/campaign.schema.json'),
    'utf8',
  );
  expect(committed).toBe(campaignJsonSchemaText());
});
