export * from './describe.ts';
export * from './models.ts';
export * from './paths.ts';
export * from './validate-input.ts';
