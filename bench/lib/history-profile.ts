/**
 * What a campaign cost Temporal, read from its event history (every run, following
 * continue-as-new): events, billable actions, and where the time went (task queue latency of
 * workflow and activity tasks, and how long each activity type ran).
 *
 * Actions are counted as Temporal Cloud bills them, from what the history shows: a workflow run
 * started (the first and each continue-as-new), an activity scheduled and each of its retries,
 * a timer, a signal sent or received, a child workflow, a local-activity marker, a search
 * attribute upsert. Heartbeats and queries are actions too but leave no event: heartbeats are
 * estimated from each activity's run time (activities/heartbeating.ts beats first after 2 s, and
 * the SDK throttles the rest to 80% of the 10 s heartbeat timeout) and queries are counted by the
 * caller.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

export interface TaskTiming {
  count: number;
  /** Mean scheduled → started (waiting in the task queue), ms. */
  meanQueueMs: number;
  /** Mean started → closed (the task itself), ms. */
  meanRunMs: number;
  /** 95th percentile of scheduled → closed, ms. */
  p95TotalMs: number;
  /** Heartbeats these tasks sent, estimated from their run times (see heartbeatsOf). */
  heartbeatsEstimated: number;
}

const FIRST_BEAT_MS = 2_000;
const BEAT_THROTTLE_MS = 8_000;

/** Heartbeats an activity that ran `runMs` sent: none before the first beat, then one per throttle. */
export function heartbeatsOf(runMs: number): number {
  return runMs < FIRST_BEAT_MS ? 0 : 1 + Math.floor((runMs - FIRST_BEAT_MS) / BEAT_THROTTLE_MS);
}

export interface HistoryProfile {
  runs: number;
  events: number;
  largestRun: number;
  /** Billable actions visible in the history, by kind. */
  actions: Record<string, number>;
  actionsTotal: number;
  workflowTasks: TaskTiming;
  /** By activity type. */
  activities: Record<string, TaskTiming>;
  /** Activity retries by type, with the last failure's message of one of them. */
  retries: Record<string, { count: number; example: string }>;
  /** Each continue-as-new, oldest first: how long creates stopped around it. */
  rollOvers: RollOver[];
}

/**
 * The pause around one continue-as-new, ms: the old run's last activity scheduled (its drain
 * begins: nothing new starts, creates included, as heirs are made inside finishes) → the old run
 * closed → the new run's first workflow task started → the new run's first create scheduled.
 */
export interface RollOver {
  drainMs: number;
  handOverMs: number;
  restartMs: number;
  totalMs: number;
}

/** What the roll-over profile needs from each run. */
interface RunMarks {
  started: number;
  firstTaskStarted?: number;
  closed: number;
  firstCreate?: number;
  lastScheduled?: number;
}

interface Span {
  scheduled: number;
  type?: string;
  started?: number;
  closed?: number;
}

const MAX_RUNS = 100_000;

/** Walks the runs backwards from the latest (each run's first event names the one it continues). */
export async function historyProfile(client: Client, workflowId: string): Promise<HistoryProfile> {
  const actions: Record<string, number> = {};
  const count = (kind: string, n = 1) => {
    actions[kind] = (actions[kind] ?? 0) + n;
  };
  const workflowTasks: Span[] = [];
  const activities = new Map<string, Span[]>();
  let runs = 0;
  let events = 0;
  let largestRun = 0;
  let runId: string | undefined;
  /** Newest first, as the walk goes. */
  const marks: RunMarks[] = [];
  const retries: HistoryProfile['retries'] = {};
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const list = history.events ?? [];
    runs++;
    events += list.length;
    largestRun = Math.max(largestRun, list.length);
    marks.push(profileRun(list, count, workflowTasks, activities, retries));
    runId = list[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId && runs < MAX_RUNS);
  return {
    runs,
    events,
    largestRun,
    actions,
    actionsTotal: Object.values(actions).reduce((a, b) => a + b, 0),
    workflowTasks: timingOf(workflowTasks),
    activities: Object.fromEntries([...activities].map(([type, spans]) => [type, timingOf(spans)])),
    retries,
    rollOvers: rollOversOf(marks.reverse()),
  };
}

function rollOversOf(runs: readonly RunMarks[]): RollOver[] {
  const rollOvers: RollOver[] = [];
  for (let i = 1; i < runs.length; i++) {
    const old = runs[i - 1]!;
    const next = runs[i]!;
    if (old.lastScheduled === undefined || next.firstCreate === undefined) continue;
    const firstTask = next.firstTaskStarted ?? next.started;
    rollOvers.push({
      drainMs: old.closed - old.lastScheduled,
      handOverMs: firstTask - old.closed,
      restartMs: next.firstCreate - firstTask,
      totalMs: next.firstCreate - old.lastScheduled,
    });
  }
  return rollOvers;
}

function profileRun(
  list: readonly HistoryEvent[],
  count: (kind: string, n?: number) => void,
  workflowTasks: Span[],
  activities: Map<string, Span[]>,
  retries: HistoryProfile['retries'],
): RunMarks {
  /** Scheduled event id → its span (workflow tasks and activities number their events alike). */
  const spans = new Map<number, Span>();
  const marks: RunMarks = { started: msOf(list[0]?.eventTime), closed: msOf(list.at(-1)?.eventTime) };
  for (const event of list) {
    const id = Number(event.eventId);
    const at = msOf(event.eventTime);
    if (event.workflowExecutionStartedEventAttributes) count('workflow started');
    if (event.timerStartedEventAttributes) count('timer');
    if (event.workflowExecutionSignaledEventAttributes) count('signal received');
    if (event.signalExternalWorkflowExecutionInitiatedEventAttributes) count('signal sent');
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) count('child workflow');
    if (event.markerRecordedEventAttributes) count('local activity');
    if (event.upsertWorkflowSearchAttributesEventAttributes) count('search attributes');
    if (event.workflowTaskScheduledEventAttributes) {
      const span = { scheduled: at };
      spans.set(id, span);
      workflowTasks.push(span);
    }
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      count('activity');
      const type = activity.activityType?.name ?? 'unknown';
      const span = { scheduled: at, type };
      spans.set(id, span);
      if (type === 'createPredictions') marks.firstCreate ??= at;
      marks.lastScheduled = at;
      const ofType = activities.get(type) ?? [];
      if (ofType.length === 0) activities.set(type, ofType);
      ofType.push(span);
    }
    const started = event.workflowTaskStartedEventAttributes ?? event.activityTaskStartedEventAttributes;
    if (event.workflowTaskStartedEventAttributes) marks.firstTaskStarted ??= at;
    if (started) {
      const span = spans.get(Number(started.scheduledEventId));
      if (span) span.started = at;
      const attempt = event.activityTaskStartedEventAttributes?.attempt ?? 1;
      if (attempt > 1) {
        count('activity retry', attempt - 1);
        const type = span?.type ?? 'unknown';
        const seen = retries[type] ?? { count: 0, example: '' };
        retries[type] = seen;
        seen.count += attempt - 1;
        seen.example = event.activityTaskStartedEventAttributes?.lastFailure?.message ?? seen.example;
      }
    }
    const closed =
      event.workflowTaskCompletedEventAttributes ??
      event.workflowTaskFailedEventAttributes ??
      event.workflowTaskTimedOutEventAttributes ??
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (closed) {
      const span = spans.get(Number(closed.scheduledEventId));
      if (span) span.closed = at;
    }
  }
  return marks;
}

function timingOf(spans: readonly Span[]): TaskTiming {
  const done = spans.filter((s) => s.started !== undefined && s.closed !== undefined);
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  const totals = done.map((s) => s.closed! - s.scheduled).sort((a, b) => a - b);
  return {
    count: spans.length,
    meanQueueMs: mean(done.map((s) => s.started! - s.scheduled)),
    meanRunMs: mean(done.map((s) => s.closed! - s.started!)),
    p95TotalMs: totals[Math.floor(totals.length * 0.95)] ?? 0,
    heartbeatsEstimated: done.reduce((n, s) => n + heartbeatsOf(s.closed! - s.started!), 0),
  };
}

function msOf(ts: HistoryEvent['eventTime']): number {
  return ts ? Number(ts.seconds ?? 0) * 1000 + Math.round((ts.nanos ?? 0) / 1e6) : 0;
}
