import { asStoreError, CompactionError, isStoreFailure } from "../../errors.js";
import { EXIT, exitCodeOf } from "../exit-codes.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import { type CompactionPlan } from "../../engine/plan.js";
import type { CompactedReport } from "../../engine/report.js";
import { managerOf, requireThread, type CliContext } from "../context.js";
import { limitText, threadContext } from "../thread-limit.js";
import { compactVerdict } from "../verdict.js";
import { requireStillInLine } from "../superseded.js";
import { bar, number, paint } from "../format.js";

export const COMPACT_HELP = `compact <thread> — print the plan (what is summarized, what is kept, tokens before → after), then do it
unless --dry-run; prints the new and the previous checkpoint ids. The write is a compare-and-swap: a turn that
lands meanwhile is never lost. Nothing is written for a busy or interrupted thread.

Usage: npx compact-thread compact <thread> (--db <file> | --postgres <url>) [--limit N] [--ratio R]
                              [--summarizer extractive|openai] [--model M] [--summary-log rewrite|append] [--dry-run] [--json]
       compact-thread compact --all [--over N] (--db <file> | --postgres <url>) [...]

The policy is the wrapper's, read the same way: a thread over the limit is brought down to 80% of it, a running
summary of up to 60% of the limit plus the newest messages verbatim (with a ratio: that share summarized, a summary
of up to 25% of the limit); a thread at or under the limit is left as it is.

  --limit N        compact a thread holding more than N tokens (default: TOKEN_LIMIT, else the one the thread's last
                   compaction recorded, else 4000; a value <= 1 is a fraction of the model's window)
  --ratio R        share (0 < R < 1) of the oldest non-system messages to summarize (default: COMPACTION_RATIO;
                   unset: compact to 80% of the limit)
  --summarizer S   extractive or openai (default: openai when OPENAI_API_KEY is set, as the wrapper; SUMMARY_MODEL,
                   OPENAI_MODEL and OPENAI_BASE_URL honoured)
  --model M        tokenizer model (default: TOKEN_MODEL, or gpt-4o); with --summarizer openai also the summary model
  --summary-log L  rewrite (a running summary, the default) or append (a log of segments), as the application's
                   summaryLog: a log compacted with rewrite becomes a running summary
  --all [--over N] compact every thread above the limit (--over N: above N tokens), with a progress bar

Examples:
  npx compact-thread compact demo-20261121-101500 --db data/demo.sqlite --dry-run
  npx compact-thread compact support-42 --postgres "$POSTGRES_URL" --ratio 0.7 --summarizer openai
  npx compact-thread compact --all --over 60000 --db data/app.sqlite`;

function describePlan(plan: CompactionPlan, estimate: number) {
  return {
    executable: plan.executable,
    reason: plan.reason,
    summarize: {
      messages: plan.summarize.length,
      firstId: plan.summarize[0]?.id ?? null,
      lastId: plan.summarize.at(-1)?.id ?? null,
    },
    keep: {
      messages: plan.keep.length,
      firstId: plan.keep[0]?.id ?? null,
      ids: plan.keep.map((message) => message.id ?? null),
    },
    system: plan.system.length,
    foldsPreviousSummary: plan.previousSummary !== undefined,
    tokens: { ...plan.tokens, afterEstimate: estimate },
  };
}

export async function compactCommand(given: CliContext, threadId: string | undefined): Promise<number> {
  if (given.options.all) return compactAll(given, managerOf(given));
  const head = await requireThread(given, threadId);
  // The thread's own limit when its last compaction recorded one and none was given.
  const context = threadContext(given, head);
  const manager = managerOf(context);
  const config = { configurable: { thread_id: threadId } };
  const limit = context.policy.tokenLimit;
  const dryRun = Boolean(context.options["dry-run"]);
  const printer = context.printer;
  // inspect's answer too (cli/verdict.ts). The summary itself is computed before anything is printed whenever that
  // costs nothing (the offline summarizer) or the thread is written anyway: what the plan shows is then exactly what
  // is written. A dry run with a model summarizer calls no model: its figure is the summary's budget, an upper bound.
  const verdict = await compactVerdict(context, manager, threadId!, head, { summarize: !dryRun });
  const { tokens, tokenRatio, over, asked, fitted, prepared } = verdict;
  const plan = prepared?.compacted.plan ?? ("plan" in fitted ? fitted.plan : asked);
  const exact = prepared ? (await manager.calibration.count(prepared.compacted.messages)).tokens : undefined;
  // The plan's estimate is the tokenizer's; the count shown beside it is the provider's where calibrated.
  const estimate = exact ?? Math.ceil(("plan" in fitted ? fitted.estimate : asked.tokens.afterEstimate) * tokenRatio);
  const ratio = context.policy.cut.by === "ratio" ? context.policy.cut.ratio : undefined;
  // A --ratio whose cut would not end under the limit's ceiling: the limit wins, and the script says so.
  const overridden =
    ratio !== undefined && "plan" in fitted && asked.executable && plan.keep.length !== asked.keep.length;
  const underLimit = `${number(tokens)} tokens, not over the limit of ${limitText(context)}`;
  const out: Record<string, unknown> = {
    threadId,
    checkpointId: head.tuple.checkpoint.id,
    tokens,
    plan: { ...describePlan(plan, estimate), estimateIsExact: exact !== undefined },
    dryRun,
  };
  if (overridden) out.ratioOverridden = { ratio, keep: asked.keep.length, afterEstimate: asked.tokens.afterEstimate };
  if (!context.json) {
    printer.line(
      `${paint(printer, 1, `thread ${threadId}`)}: ${head.messages.length} messages, ${number(tokens)} tokens (head ${head.tuple.checkpoint.id})`,
    );
    // The first line says why nothing will be written when nothing will: a thread under the limit is left as it is.
    printer.line(
      `plan: ${!over ? `nothing to compact: ${underLimit}` : "skipped" in fitted ? fitted.skipped : plan.reason}`,
    );
    if (overridden) {
      printer.line(
        `  note      --ratio ${ratio} would keep ${asked.keep.length} messages and end at ~${number(asked.tokens.afterEstimate)} tokens, above the ceiling of ${number(context.policy.ceiling ?? limit)}: the limit wins`,
      );
    }
    if (over && "plan" in fitted) {
      printer.line(
        `  summarize ${plan.summarize.length} messages (${plan.summarize[0]?.id} … ${plan.summarize.at(-1)?.id}), ${number(plan.tokens.summarized)} tokens${plan.previousSummary ? ", folding in the previous summary" : ""}`,
      );
      printer.line(
        `  keep      ${plan.keep.length} messages verbatim, ${number(plan.tokens.kept)} tokens; ${plan.system.length} system message(s) untouched`,
      );
      printer.line(
        `  tokens    ${number(tokens)} → ${exact === undefined ? "at most " : ""}${number(estimate)}  ${bar(estimate, tokens)}`,
      );
    }
  }
  if (head.busyReason) {
    throw new CompactionError({
      code: "THREAD_BUSY",
      value: threadId,
      message: `thread ${threadId} is not idle: ${head.busyReason}; nothing written`,
    });
  }
  if (!over) {
    out.status = "skipped";
    out.code = "UNDER_LIMIT";
    out.reason = underLimit;
  } else if ("skipped" in fitted) {
    out.status = "skipped";
    out.reason = fitted.skipped;
    out.code = fitted.code;
  } else if (dryRun) {
    out.status = "dry-run";
  } else {
    // The summary shown above, written (rebased onto a turn that landed meanwhile); a head whose prefix changed
    // meanwhile is read and summarized afresh, as compactThread does.
    const report = await manager.compactThread(config, {}, { prepared });
    out.status = report.status;
    out.report = report;
    if (report.status === "conflict")
      throw new CompactionError({ code: "WRITE_CONFLICT", value: threadId, message: report.reason });
    if (report.status === "skipped" && (report.code === "BUSY" || report.code === "INTERRUPTED"))
      throw new CompactionError({ code: "THREAD_BUSY", value: threadId, message: report.reason });
    if (report.status === "skipped") {
      out.reason = report.reason;
      out.code = report.code;
    }
    if (report.status === "compacted")
      await requireStillInLine(context, threadId!, report.newCheckpointId, "compaction");
  }
  if (context.json) {
    printer.line(JSON.stringify(out, null, 2));
  } else if (out.status === "compacted") {
    const report = out.report as CompactedReport;
    printer.line(
      paint(
        printer,
        32,
        `compacted: ${number(report.tokensBefore)} → ${number(report.tokensAfter)} tokens, ${report.messagesBefore} → ${report.messagesAfter} messages`,
      ),
    );
    printer.line(`new checkpoint      ${report.newCheckpointId}`);
    printer.line(
      `previous checkpoint ${report.previousCheckpointId} (undo with: ${context.invokedAs} restore ${threadId} --checkpoint ${report.previousCheckpointId} ${context.storeArgs})`,
    );
  } else {
    printer.line(out.status === "dry-run" ? "dry run: nothing written" : `nothing written: ${String(out.reason)}`);
  }
  return 0;
}

async function compactAll(context: CliContext, manager: HistoryManager): Promise<number> {
  // --over N is --limit N for --all (the policy was resolved with it: context.ts).
  const over = context.policy.tokenLimit;
  // Each thread over its own limit, where its last compaction recorded one and none was given.
  const candidates: Array<{ threadId: string; tokens: number; manager: HistoryManager }> = [];
  for (const row of await context.store.threads.listThreads()) {
    const head = await context.store.threads.readHead(row.threadId);
    if (!head) continue;
    const own = threadContext(context, head);
    const ownManager = own === context ? manager : managerOf(own);
    const { tokens } = await ownManager.calibration.count(head.messages);
    if (tokens > own.limit) candidates.push({ threadId: row.threadId, tokens, manager: ownManager });
  }
  const results: Array<Record<string, unknown>> = [];
  const failures: unknown[] = [];
  let stopped = 0;
  const tty = process.stderr.isTTY && !context.json;
  for (const [index, candidate] of candidates.entries()) {
    if (stopped > 0) break;
    if (tty)
      process.stderr.write(
        `\r${bar(index, candidates.length, 30)} ${index}/${candidates.length} ${candidate.threadId.slice(0, 30).padEnd(30)}`,
      );
    try {
      if (context.options["dry-run"]) {
        results.push({ threadId: candidate.threadId, status: "dry-run", reason: `${number(candidate.tokens)} tokens` });
      } else {
        const report = await candidate.manager.compactThread({ configurable: { thread_id: candidate.threadId } });
        const written = report.status === "compacted" ? report : undefined;
        results.push({
          threadId: candidate.threadId,
          status: report.status,
          reason: report.reason,
          tokensBefore: report.tokensBefore,
          tokensAfter: written?.tokensAfter,
          newCheckpointId: written?.newCheckpointId ?? null,
          previousCheckpointId: report.previousCheckpointId,
        });
      }
    } catch (raw) {
      const error = asStoreError(raw, candidate.threadId);
      failures.push(error);
      results.push({
        threadId: candidate.threadId,
        status: "failed",
        reason: error instanceof Error ? error.message : String(error),
      });
      // The store itself failed: every later thread would fail the same way (and nothing more is written).
      if (isStoreFailure(error)) stopped = candidates.length - index - 1;
    }
    if (!tty && !context.json) {
      const last = results.at(-1)!;
      context.printer.line(
        `[${index + 1}/${candidates.length}] ${candidate.threadId}: ${String(last.status)} ${last.tokensAfter !== undefined ? `${number(last.tokensBefore as number)} → ${number(last.tokensAfter as number)} tokens` : String(last.reason ?? "")}`,
      );
    }
  }
  if (tty) process.stderr.write(`\r${bar(1, 1, 30)} ${candidates.length}/${candidates.length}${" ".repeat(32)}\n`);
  if (context.json)
    context.printer.line(
      JSON.stringify({ over, threads: results, ...(stopped > 0 ? { notAttempted: stopped } : {}) }, null, 2),
    );
  else
    context.printer.line(
      `${results.filter((result) => result.status === "compacted").length} of ${candidates.length} thread(s) above ${number(over)} tokens compacted`,
    );
  if (failures.length === 0) return EXIT.ok;
  // The failures' own exit code (the first one's), and one line saying what failed.
  const first = failures[0];
  const reason = first instanceof Error ? first.message.split("\n")[0] : String(first);
  const rest = stopped > 0 ? `; the store failed, so ${stopped} more thread(s) were not attempted` : "";
  process.stderr.write(
    `compact-thread: ${failures.length} of ${candidates.length} thread(s) failed${rest}. First: ${reason}\n`,
  );
  return exitCodeOf(first);
}
