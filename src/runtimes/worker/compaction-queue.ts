/**
 * The fleet's job queue: pg-boss, in the store's own Postgres database (its tables in their own schema, created by its
 * own migrations), reached through the checkpointer's pool. One queue per store (named after its schema), `stately`:
 * a thread's job is keyed by its thread id, and pg-boss keeps at most one queued and one active job per key — a second
 * send while one waits is absorbed, and no two workers ever run one thread at once.
 */
import type PgBoss from "pg-boss";
import { CompactionError } from "../../errors.js";
import { importOptional } from "../../optional-dependency.js";
import type { ThreadStore } from "../../store/thread-store.js";

/** pg-boss on the store's database, with the name of the store's queue. */
export interface JobQueue {
  boss: PgBoss;
  compaction: string;
}

/** What a compaction job carries. */
export interface CompactionJob {
  threadId: string;
}

export interface QueueSettings {
  schema: string;
  /** A job not done in this long fails, and is retried (ms). */
  jobTimeoutMs: number;
}

/**
 * pg-boss started on `store`'s database, the store's queue created (idempotent: every worker does it at start).
 * @throws CompactionError UNSUPPORTED for a store that is not Postgres; MISSING_DEPENDENCY when pg-boss is not
 *   installed.
 */
export async function openQueue(
  store: ThreadStore,
  { schema, jobTimeoutMs }: QueueSettings,
  onError: (error: unknown) => void,
): Promise<JobQueue> {
  const db = store.queueDatabase;
  if (!db)
    throw new CompactionError({
      code: "UNSUPPORTED",
      value: store.backend,
      message: `the compaction worker runs its jobs on Postgres (pg-boss), and this store is ${store.backend}: on SQLite, compaction runs in the application's process (CompactingSupervisor, compactionMiddleware), or once over many threads with compactThreads`,
    });
  const { default: Boss } = await importOptional("pg-boss", "the compaction worker", () => import("pg-boss"));
  const expireInSeconds = Math.ceil(jobTimeoutMs / 1000);
  const boss = new Boss({
    db,
    schema,
    schedule: false,
    // Expired jobs (a worker killed mid-job) are found by this maintenance, at most this often.
    maintenanceIntervalSeconds: Math.max(1, Math.min(120, Math.floor(expireInSeconds / 2))),
  });
  boss.on("error", onError);
  await boss.start();
  const queue = { boss, compaction: `langgraph-compaction_${db.scope}` };
  await createQueue(boss, {
    name: queue.compaction,
    policy: "stately",
    expireInSeconds,
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
  });
  return queue;
}

/**
 * Creates the queue unless it exists. Workers starting together create it at once, and pg-boss's creation can then
 * deadlock against another's: the loser finds the queue made, or tries again.
 */
async function createQueue(boss: PgBoss, queue: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(queue.name)) return;
    try {
      return await boss.createQueue(queue.name, queue);
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt * Math.random()));
    }
  }
}

/** Sends `threadId`'s job, to start at `startAfter` (absorbed when one is queued for the thread already). */
export async function sendCompaction(queue: JobQueue, threadId: string, startAfter?: Date): Promise<void> {
  await queue.boss.send(queue.compaction, { threadId } satisfies CompactionJob, {
    singletonKey: threadId,
    ...(startAfter && startAfter.getTime() > Date.now() ? { startAfter } : {}),
  });
}
