/** Everything mediaflow knows about the prediction service, from one import. */
export * from './catalogue/index.ts';
export * from './client/index.ts';
export * from './money.ts';
export * from './wire/index.ts';
