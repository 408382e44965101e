/** Finding the things a path names, with the 404s a user can act on. */
import { MODEL_LABELS, type ModelLabel, type ModelPaths } from '../../api/catalogue/index.ts';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { StoredPrediction } from '../predictions/prediction.ts';

export function modelByPath(paths: ModelPaths, owner: string, model: string): ModelLabel {
  return modelById(paths, `${owner}/${model}`);
}

/** `owner/model` → label, or a 404 listing every model. */
export function modelById(paths: ModelPaths, id: string): ModelLabel {
  const label = paths.labelOfId(id);
  if (label) return label;
  const known = MODEL_LABELS.map((l) => paths.idOf(l));
  throw new ApiError('MODEL_NOT_FOUND', `no model "${id}"; the models are: ${known.join(', ')}`, {
    param: 'model',
    allowed: known,
  });
}

export function predictionById(context: EmulatorContext, id: string): StoredPrediction {
  const prediction = context.predictions.find(id);
  if (!prediction) throw new ApiError('PREDICTION_NOT_FOUND', `no prediction with id ${JSON.stringify(id)}`);
  return prediction;
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', `no ${what} with id ${JSON.stringify(id)}`);
}

/** The one header a create may carry; several values are refused rather than guessed. */
export function idempotencyHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) {
    throw new ApiError('INVALID_PARAMETER', 'send a single Idempotency-Key header', {
      param: 'Idempotency-Key',
    });
  }
  return value;
}
