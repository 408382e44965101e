/**
 * What signing one file takes. Reusable for any file mediaflow makes: give it the bytes, their
 * type, the manifest definition and the ingredients.
 */
export interface IngredientFile {
  readonly bytes: Buffer;
  readonly format: string;
  readonly title: string;
  /**
   * `inputTo`: what a generation was given (a clip's still); `componentOf`: a part of it;
   * `parentOf`: the file a derivative was edited from (its crop, caption or cut).
   */
  readonly relationship: 'inputTo' | 'componentOf' | 'parentOf';
  /** The name actions give it (`ingredientIds`): the SDK pairs them, then names it its own way. */
  readonly label?: string;
}

export interface SignRequest {
  /** What is signed: the file as delivered (its XMP embedded). */
  readonly bytes: Buffer;
  /** The file as the service sent it, before anything was embedded: its manifest, if any, is the parent. */
  readonly served: Buffer;
  readonly format: string;
  readonly title: string;
  readonly definition: object;
  readonly ingredients: readonly IngredientFile[];
}
