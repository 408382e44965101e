/**
 * The activities that carry a batch of jobs. Each is the root of a trace of its own, linked to its
 * campaign's run (activity-spans.ts), and the workflow schedules it without a span of its own
 * (workflow-interceptors.ts): a span per batch would make the campaign's trace grow with its size,
 * and was most of what tracing cost the workflow thread (docs/benchmarks.md, "Tracing overhead").
 * Imported by the workflow bundle too, so it imports nothing.
 */
export const BATCH_ACTIVITIES: ReadonlySet<string> = new Set(['createPredictions', 'finishPredictions']);
