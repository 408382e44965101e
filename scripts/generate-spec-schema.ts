/**
 * Writes specs/campaign.schema.json from the zod schema of the campaign spec (`npm run schema`).
 * test/plan/json-schema.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { campaignJsonSchemaText } from '../plan/json-schema.ts';

const target = fileURLToPath(new URL('../specs/campaign.schema.json', import.meta.url));
writeFileSync(target, campaignJsonSchemaText());
console.log(`wrote ${target}`);
