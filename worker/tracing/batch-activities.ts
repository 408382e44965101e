/**
 * The activities that carry a batch of jobs. Each is the root of a trace of its own, linked to its
 * campaign's run (activity-spans.ts), and the workflow schedules it without a span of its own
 * (workflow-interceptors.ts): a span per batch made the campaign's trace grow with its size (1,555
 * of a 10,000-job campaign's 1,674 spans) and was most of what tracing cost the workflow thread.
 * Imported by the workflow bundle too, so it imports nothing.
 */
export const BATCH_ACTIVITIES: ReadonlySet<string> = new Set(['createPredictions', 'finishPredictions']);
