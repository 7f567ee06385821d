/**
 * `npm start`: a supervisor with two sub-agents holds a multi-turn conversation (read from data/), streaming tokens
 * with the speaking agent's name, printing the thread's token count after each turn and each compaction. The thread
 * is stored in a SQLite file under data/. Offline by default (scripted models); real OpenAI models when
 * OPENAI_API_KEY is set.
 */
import "../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { CompactedReport } from "../src/engine/report.js";
import { CompactingSupervisor } from "../src/runtimes/wrapper/compacting-supervisor.js";
import { createDefaultSummarizer } from "../src/summarizers/default.js";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { isUnbuiltNativeModule, unbuiltSqlite } from "../src/optional-dependency.js";
import { createTeam, scriptedModels, type TeamModels } from "../test/support/team.js";

if (existsSync(".env")) process.loadEnvFile(".env");
const env = process.env;
const colour = process.stdout.isTTY && !env.NO_COLOR;
const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
const AGENT_COLOURS: Record<string, number> = { supervisor: 36, researcher: 33, coder: 35 };

const databasePath = resolve(env.DATABASE_PATH || "data/demo.sqlite");
const tokenLimit = Number(env.DEMO_TOKEN_LIMIT || env.TOKEN_LIMIT || 2_500);
const conversation = JSON.parse(
  readFileSync(resolve(env.DEMO_CONVERSATION || "data/demo-conversation.json"), "utf8"),
) as { title: string; turns: string[] };
const turnLimit = env.DEMO_TURNS ? Number(env.DEMO_TURNS) : conversation.turns.length;

function models(): { models: TeamModels; label: string } {
  if (!env.OPENAI_API_KEY)
    return {
      models: scriptedModels(env.DEMO_TOKEN_DELAY_MS ? Number(env.DEMO_TOKEN_DELAY_MS) : 8),
      label: "scripted models (offline)",
    };
  const name = env.OPENAI_MODEL || "gpt-4o-mini";
  const make = () =>
    new ChatOpenAI({
      model: name,
      apiKey: env.OPENAI_API_KEY,
      configuration: env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : undefined,
    });
  return { models: { supervisor: make(), researcher: make(), coder: make() }, label: `OpenAI ${name}` };
}

mkdirSync(dirname(databasePath), { recursive: true });
let saver: SqliteSaver;
try {
  saver = SqliteSaver.fromConnString(databasePath);
} catch (error) {
  // better-sqlite3 without its native module (npm 11 skipped its install script): say what to add, not a stack.
  if (!isUnbuiltNativeModule(error)) throw error;
  console.error(`npm start: ${unbuiltSqlite(error).message}`);
  process.exit(1);
}
const { models: teamModels, label } = models();
const team = createTeam(saver, teamModels);
// OPENAI_API_KEY picks the LLM summarizer, as it picks the models; the rest of the policy (COMPACTION_RATIO,
// TOKEN_MODEL) the wrapper reads from the environment given to it, as the script does.
const summarizer = createDefaultSummarizer({ env });
// Every compaction that lands, as it lands (most land between turns, outside any stream): the true count.
const landed: CompactedReport[] = [];
const supervisor = new CompactingSupervisor(team, {
  trigger: { tokens: tokenLimit },
  summarizer,
  env,
  onCompaction: (report) => void (report.status === "compacted" && landed.push(report)),
  onCompactionError: (error) =>
    console.error(
      paint(31, `\n  compaction failed (nothing written): ${error instanceof Error ? error.message : String(error)}`),
    ),
});
const threadId =
  env.DEMO_THREAD_ID || `demo-${new Date().toISOString().replace(/[-:]/g, "").replace(/\..+/, "").replace("T", "-")}`;
const config = { configurable: { thread_id: threadId } };

console.log(paint(1, conversation.title));
console.log(
  `thread ${threadId} in ${relative(process.cwd(), databasePath)} · ${label} · summarizer: ${summarizer.name} · limit ${tokenLimit.toLocaleString("en")} tokens\n`,
);

const shown = new Set<string>();
function show(report: CompactedReport): void {
  shown.add(report.newCheckpointId);
  console.log(
    paint(
      32,
      `\n  ⤷ compaction: ${report.tokensBefore?.toLocaleString("en")} → ${report.tokensAfter?.toLocaleString("en")} tokens, ` +
        `${report.summarizedMessages} messages summarized (${report.messagesBefore} → ${report.messagesAfter} messages), ` +
        `checkpoint ${report.previousCheckpointId} → ${report.newCheckpointId}`,
    ),
  );
}

for (const [index, text] of conversation.turns.slice(0, turnLimit).entries()) {
  console.log(paint(1, `\n[${index + 1}] user: `) + text);
  let speaking = "";
  let messageId: string | undefined;
  for await (const event of supervisor.streamTokens({ messages: [new HumanMessage(text)] }, config)) {
    if (event.type === "token") {
      if (event.agent !== speaking || event.messageId !== messageId) {
        speaking = event.agent;
        messageId = event.messageId;
        process.stdout.write(`\n  ${paint(AGENT_COLOURS[speaking] ?? 32, `${speaking}:`)} `);
      }
      process.stdout.write(event.content);
    } else if (event.type === "compaction") {
      // A compaction that landed since the last turn (reported before this turn's tokens) or at the end of this one.
      if (!shown.has(event.report.newCheckpointId)) show(event.report);
    }
  }
  const state = await supervisor.getState(config);
  const messages = state.values.messages as BaseMessage[];
  const tokens = new TokenCounter({ model: supervisor.policy.model }).countMessages(messages);
  console.log(
    paint(
      90,
      `\n  thread: ${messages.length} messages, ${tokens.toLocaleString("en")} / ${tokenLimit.toLocaleString("en")} tokens`,
    ),
  );
  // The person reads the answer before the next message: a compaction the turn started lands meanwhile, so the demo
  // (and the figures the docs quote from it) lands each one after the turn that crossed the limit, on any machine.
  await supervisor.flush();
  for (const report of landed) if (!shown.has(report.newCheckpointId)) show(report);
}
await supervisor.close();
// What landed after the last turn's stream.
for (const report of landed) if (!shown.has(report.newCheckpointId)) show(report);

const dbArgument = relative(process.cwd(), databasePath);
console.log(paint(1, `\nDone: ${Math.min(turnLimit, conversation.turns.length)} turns, ${landed.length} compactions.`));
console.log("Inspect or compact the stored thread with the compaction script:");
// With the demo's limit: the script's own default (4,000) would judge the thread against another one.
console.log(`  npm run compact -- inspect ${threadId} --db ${dbArgument} --limit ${tokenLimit}`);
console.log(`  npm run compact -- history ${threadId} --db ${dbArgument} --limit ${tokenLimit}`);
console.log(`  npm run compact -- compact ${threadId} --db ${dbArgument} --limit ${tokenLimit} --dry-run`);
console.log(`  npm run compact -- search ${threadId} rounding test --db ${dbArgument}`);
saver.db.close();
