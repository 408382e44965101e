/**
 * The OpenAPI 3.1 document served at /v1/openapi.json, generated from the same zod schemas the
 * emulator validates with and the client parses with, so a tool nobody here wrote (Schemathesis,
 * test/emulator/schemathesis.int.test.ts) checks the real contract: every status an operation can
 * answer is listed (no catch-all `default`), create is one operation per model whose body points
 * at that model's input schema, and the stream's events have schemas.
 */
import { z } from 'zod';
import { MODEL_LABELS, MODELS, type ModelPaths } from '../../api/catalogue/index.ts';
import {
  BatchItemRequest,
  ErrorBody,
  PredictionRecord,
  STREAM_EVENTS,
  StreamDone,
} from '../../api/wire/index.ts';
import { CREATE_PATH, ENDPOINTS, type Endpoint } from './endpoints.ts';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

const json = (schema: Json) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid request: bad JSON, a missing, unknown or invalid parameter',
  401: 'No API key, or one that is unknown, deleted or rotated away',
  402: 'Not enough credits',
  404: 'No such resource or model',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Body not sent as application/json',
  429: 'Rate limit or in-flight limit reached; wait Retry-After seconds',
  503: 'Temporarily unavailable (an injected fault); retry later',
};

const RETRY_HEADERS = {
  'Retry-After': { required: true, schema: { type: 'string', pattern: '^\\d+$' } },
  'retry-after-ms': { required: true, schema: { type: 'string', pattern: '^\\d+$' } },
};

function errorStatuses(endpoint: Endpoint): number[] {
  const statuses = new Set([503, ...(endpoint.errors ?? [])]);
  if (!endpoint.open) for (const status of [401, 429]) statuses.add(status);
  if (endpoint.body) for (const status of [400, 413, 415]) statuses.add(status);
  if (endpoint.query) statuses.add(400);
  if (endpoint.path.includes('{')) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

function queryParameters(query: z.ZodObject | undefined): Json[] {
  return Object.entries(query?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    schema: jsonSchema(schema as z.ZodType, 'input'),
  }));
}

/**
 * One Server-Sent Event, as Open API 3.1 tools read `schema` under `text/event-stream` (and 3.2
 * calls `itemSchema`): its `event` name and its `data`, a JSON text whose own schema is given
 * with contentMediaType/contentSchema, so a tool checks the record inside each event too.
 */
function sseEvent(name: string, dataSchema: string): Json {
  return {
    type: 'object',
    required: ['event', 'data'],
    properties: {
      event: { const: name },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: ref(dataSchema) },
    },
  };
}

const STREAM_DESCRIPTION = [
  'Server-Sent Events: `status` carries the prediction record, the current one first and then one',
  'per change; after a terminal status, `done` carries `{ id, status }` and the stream ends.',
  '`: ping` comments come every 15 s. Clients must skip events they do not know.',
].join(' ');

function success(endpoint: Endpoint): Json {
  if (endpoint.response !== 'event-stream') return json(jsonSchema(endpoint.response, 'output'));
  return {
    'text/event-stream': {
      schema: {
        description: STREAM_DESCRIPTION,
        oneOf: [
          sseEvent(STREAM_EVENTS.status, 'StreamStatusEvent'),
          sseEvent(STREAM_EVENTS.done, 'StreamDoneEvent'),
        ],
      },
    },
  };
}

function operation(endpoint: Endpoint, requestBody?: Json, idempotency = false): Json {
  const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  const idempotencyHeader = idempotency
    ? [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', minLength: 1, maxLength: 255 } }]
    : [];
  const errors = Object.fromEntries(
    errorStatuses(endpoint).map((status) => [
      String(status),
      {
        description: STATUS_TEXT[status],
        ...(status === 429 ? { headers: RETRY_HEADERS } : {}),
        content: json(ref('Error')),
      },
    ]),
  );
  const body = requestBody ?? (endpoint.body ? jsonSchema(endpoint.body, 'input') : undefined);
  return {
    summary: endpoint.summary,
    ...(endpoint.open ? { security: [] } : {}),
    parameters: [...pathParams, ...queryParameters(endpoint.query), ...idempotencyHeader],
    ...(body ? { requestBody: { required: true, content: json(body) } } : {}),
    responses: { '200': { description: 'Success', content: success(endpoint) }, ...errors },
  };
}

/** `{ model, input, ... }` as one variant per model: that model's id and its input schema. */
function perModelBody(endpoint: Endpoint, paths: ModelPaths): Json {
  const body = jsonSchema(endpoint.body!, 'input') as { properties: Json };
  return {
    oneOf: MODEL_LABELS.map((label) => ({
      ...body,
      properties: { ...body.properties, model: { const: paths.idOf(label) }, input: ref(`${label}Input`) },
    })),
  };
}

/** One create operation per model: its path, and a body whose `input` is that model's schema. */
function createOperations(endpoint: Endpoint, paths: ModelPaths): [string, Json][] {
  const body = jsonSchema(endpoint.body!, 'input') as { properties: Json };
  return MODEL_LABELS.map((label) => {
    const { owner, model } = paths.pathOf(label);
    const modelBody = { ...body, properties: { ...body.properties, input: ref(`${label}Input`) } };
    const create = operation({ ...endpoint, path: CREATE_PATH }, modelBody, true);
    const pathParams = (create.parameters as Json[]).filter((p) => p.in !== 'path');
    return [
      `/v1/${owner}/${model}/predictions`,
      {
        ...create,
        operationId: `create${label}Prediction`,
        summary: `Create a ${label} prediction`,
        parameters: pathParams,
      },
    ];
  });
}

export function openApiDocument(serverUrl: string, modelPaths: ModelPaths): Json {
  const paths: Record<string, Json> = {};
  for (const endpoint of ENDPOINTS) {
    if (endpoint.path === CREATE_PATH) {
      for (const [path, create] of createOperations(endpoint, modelPaths)) paths[path] = { post: create };
      continue;
    }
    paths[endpoint.path] ??= {};
    const body = endpoint.perModelBody ? perModelBody(endpoint, modelPaths) : undefined;
    paths[endpoint.path]![endpoint.method] = operation(endpoint, body);
  }
  const modelInputs = Object.fromEntries(
    MODEL_LABELS.map((label) => [`${label}Input`, jsonSchema(MODELS[label].input, 'input')]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Generative Media Prediction Service (mediaflow emulator)',
      version: '1',
      description:
        "Create is one operation per model; its `input` is the model's schema in components.schemas (<label>Input). " +
        'A method a path does not list is answered 405 with `Allow`.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: jsonSchema(ErrorBody, 'output'),
        StreamStatusEvent: jsonSchema(PredictionRecord, 'output'),
        StreamDoneEvent: jsonSchema(StreamDone, 'output'),
        BatchItemRequest: jsonSchema(BatchItemRequest, 'input'),
        ...modelInputs,
      },
    },
  };
}
