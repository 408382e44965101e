export * from './errors.ts';
export * from './events.ts';
export * from './prediction.ts';
export * from './resources.ts';
