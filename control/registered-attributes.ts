/**
 * Which of mediaflow's search attributes the namespace has registered: campaigns are searchable
 * only where all are (docs/deployment.md), and the embedded dev server registers what it lacks.
 */
import type { Client } from '@temporalio/client';
import {
  encodeSearchAttributeIndexedValueType,
  type SearchAttributeKey,
  type SearchAttributeType,
} from '@temporalio/common/lib/search-attributes.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/runtime/search-attributes.ts';

/**
 * Whether the namespace has every mediaflow search attribute with its type (the embedded dev
 * server and docker-compose.yml register them; other servers by hand, docs/deployment.md).
 * Without them a campaign runs all the same, unsearchable: starting or upserting an unregistered
 * attribute would fail. A server that will not say (permissions) counts as without.
 */
export async function searchAttributesRegistered(client: Client): Promise<boolean> {
  return (await registeredKeys(client)).size === SEARCH_ATTRIBUTE_KEYS.length;
}

/**
 * The mediaflow search attributes the namespace has, each with its type. A namespace set up before
 * MediaflowFaults existed has every other one: its campaigns stay searchable and leave that one out.
 */
export async function registeredKeys(client: Client): Promise<Set<string>> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
      namespace: client.options.namespace,
    });
    const has = (key: SearchAttributeKey<SearchAttributeType>) =>
      customAttributes?.[key.name] === encodeSearchAttributeIndexedValueType(key.type);
    return new Set(SEARCH_ATTRIBUTE_KEYS.filter(has).map((key) => key.name));
  } catch {
    return new Set();
  }
}

/**
 * Registers mediaflow's search attributes that the namespace lacks. For the embedded dev server
 * only: it registers them when it creates its database, so a state folder made by an older
 * mediaflow would otherwise keep campaigns unsearchable (other servers are the operator's).
 */
export async function registerSearchAttributes(client: Client): Promise<void> {
  const { namespace } = client.options;
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => customAttributes?.[key.name] === undefined);
  if (missing.length === 0) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.flatMap((key) => {
        const type = encodeSearchAttributeIndexedValueType(key.type);
        return type === undefined ? [] : [[key.name, type]];
      }),
    ),
  });
}
