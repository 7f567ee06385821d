/**
 * A deterministic generator (seeded) of long agent conversations as *plans* a fake model can play through a real
 * compiled graph: user turns, a supervisor handing off to sub-agents, tool calls with bulky results (JSON, logs,
 * code), parallel tool calls, chit-chat — and planted facts (names, numbers, dates, decisions, identifiers), each
 * stated once somewhere in the conversation, with a question and the key tokens of its answer.
 */
import { createRandom, type Random } from "./random.js";
import { code, jsonResult, prose } from "./text.js";

export type FactKind = "name" | "number" | "date" | "decision" | "identifier";
export type FactCarrier = "user" | "tool" | "assistant";

export interface PlantedFact {
  id: string;
  kind: FactKind;
  /** The sentence that states it, verbatim inside one message. */
  statement: string;
  question: string;
  /** Tokens that must all be present for the fact to count as retained. */
  keys: string[];
  /** Turn index and the message kind carrying it. */
  turn: number;
  carrier: FactCarrier;
}

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
  /** What the tool returns. */
  result: string;
}

/** One model reply: tool calls (one, or parallel ones) or the final text of the turn. */
export type PlannedReply = { calls: PlannedCall[] } | { text: string };

export interface PlannedTurn {
  user: string;
  replies: PlannedReply[];
}

export interface Conversation {
  seed: number;
  turns: PlannedTurn[];
  facts: PlantedFact[];
  /** Messages the conversation stores when played without compaction (user + AI + tool messages). */
  messages: number;
}

export const SUB_AGENTS = ["researcher", "coder"] as const;
export const WORK_TOOLS = ["search_orders", "read_file", "run_tests", "query_metrics"] as const;
export const TOOL_NAMES = [...WORK_TOOLS, ...SUB_AGENTS.map((agent) => `transfer_to_${agent}`)];

const FIRST = [
  "Ingrid",
  "Tomasz",
  "Aiyana",
  "Kwame",
  "Solveig",
  "Rafael",
  "Mirela",
  "Haruto",
  "Leilani",
  "Oskar",
  "Zanele",
  "Bruno",
];
const LAST = [
  "Okonkwo",
  "Vasquez-Lind",
  "Halvorsen",
  "Abernathy",
  "Nakashima",
  "Delacroix",
  "Petrovic",
  "Oyelaran",
  "Fitzgerald",
  "Marchetti",
];
const ROLES = [
  "release manager",
  "billing owner",
  "on-call lead",
  "security reviewer",
  "budget approver",
  "vendor contact",
];
const THINGS = [
  "the Q3 refund budget",
  "the Lisbon data-center lease",
  "the Stripe migration cap",
  "the annual audit fee",
  "the fraud-review backlog",
];
const EVENTS = [
  "the schema freeze",
  "the vendor contract renewal",
  "the PCI audit",
  "the invoice cutover",
  "the on-call handover",
];
const DECISIONS = [
  ["queue", "Kafka", "RabbitMQ", "ordering guarantees per customer"],
  ["database", "Postgres", "MongoDB", "transactional refunds"],
  ["region", "Frankfurt", "Dublin", "data-residency rules"],
  ["rounding", "banker's rounding", "half-up rounding", "the auditor's request"],
  ["retry policy", "exponential backoff", "fixed delays", "rate-limit bursts"],
];
const CHIT_CHAT = ["thanks!", "ok, go on", "great, appreciated", "sounds good", "perfect", "got it, thanks a lot"];

function plantFact(random: Random, index: number, used: Set<string>): Omit<PlantedFact, "turn" | "carrier"> {
  const unique = (make: () => string) => {
    for (;;) {
      const value = make();
      if (!used.has(value)) {
        used.add(value);
        return value;
      }
    }
  };
  const kind = (["name", "number", "date", "decision", "identifier"] as const)[index % 5]!;
  switch (kind) {
    case "name": {
      const role = random.pick(ROLES);
      const first = unique(() => `${random.pick(FIRST)}${random.pick(["", "a", "o", "e"])}`);
      const last = random.pick(LAST);
      return {
        id: `fact-${index}`,
        kind,
        statement: `The ${role} for workstream W${index} is ${first} ${last}.`,
        question: `Who is the ${role} for workstream W${index}?`,
        keys: [first, last],
      };
    }
    case "number": {
      const amount = unique(() => `${random.int(10, 989)},${String(random.int(0, 999)).padStart(3, "0")}`);
      const thing = random.pick(THINGS);
      return {
        id: `fact-${index}`,
        kind,
        statement: `For workstream W${index}, ${thing} was set at ${amount} EUR.`,
        question: `What was ${thing} set at for workstream W${index}?`,
        keys: [amount],
      };
    }
    case "date": {
      const date = unique(
        () =>
          `20${random.int(27, 29)}-${String(random.int(1, 12)).padStart(2, "0")}-${String(random.int(1, 28)).padStart(2, "0")}`,
      );
      const event = random.pick(EVENTS);
      return {
        id: `fact-${index}`,
        kind,
        statement: `For workstream W${index}, ${event} is scheduled on ${date}.`,
        question: `When is ${event} for workstream W${index}?`,
        keys: [date],
      };
    }
    case "decision": {
      const [topic, chosen, rejected, reason] = random.pick(DECISIONS) as [string, string, string, string];
      const record = unique(() => `ADR-${random.int(100, 999)}`);
      return {
        id: `fact-${index}`,
        kind,
        statement: `Decision ${record} for workstream W${index}: we chose ${chosen} over ${rejected} for the ${topic} because of ${reason}.`,
        question: `What did we choose for the ${topic} of workstream W${index}?`,
        keys: [record, chosen],
      };
    }
    default: {
      const ticket = unique(() => `${random.pick(["INC", "CHG", "OPS", "SEC"])}-${random.int(1000, 9999)}`);
      return {
        id: `fact-${index}`,
        kind,
        statement: `The tracking ticket for workstream W${index} is ${ticket}.`,
        question: `Which ticket tracks workstream W${index}?`,
        keys: [ticket],
      };
    }
  }
}

function bulkyResult(random: Random, tool: string, fact?: string): string {
  const body =
    tool === "search_orders"
      ? jsonResult(random, random.int(3, 9))
      : tool === "read_file"
        ? code(random, random.int(10, 30))
        : tool === "run_tests"
          ? Array.from(
              { length: random.int(8, 20) },
              (_, line) =>
                `${random.pick(["PASS", "PASS", "PASS", "FAIL"])} test/billing/${line}.test.ts (${random.int(3, 900)} ms)`,
            ).join("\n")
          : `${prose(random, random.int(2, 5))}\n${Array.from({ length: random.int(5, 12) }, () => `p95_latency_ms{service="billing"} ${random.int(20, 900)}`).join("\n")}`;
  if (!fact) return body;
  // The fact sits inside the bulky output, as a line of a log or a field of a record would.
  const lines = body.split("\n");
  lines.splice(random.int(0, lines.length), 0, `NOTE: ${fact}`);
  return lines.join("\n");
}

export interface ConversationOptions {
  seed?: number;
  /** Approximate number of stored messages (50 to a few thousand). */
  messages: number;
  /** One planted fact per this many messages (at least 4 facts). @default 12 */
  factEvery?: number;
}

export function generateConversation({ seed = 1, messages, factEvery = 12 }: ConversationOptions): Conversation {
  const random = createRandom(seed);
  const used = new Set<string>();
  const factCount = Math.max(4, Math.floor(messages / factEvery));
  const facts: PlantedFact[] = [];
  const turns: PlannedTurn[] = [];
  let stored = 0;
  let callCounter = 0;
  const callArgs = (tool: string) => ({ query: `${tool.replace(/_/g, " ")} #${++callCounter}` });
  while (stored < messages) {
    const turn = turns.length;
    // Plant facts evenly over the planned length, so every quarter of the history carries some.
    const due = facts.length < factCount && stored >= (facts.length * messages) / factCount;
    const fact = due ? plantFact(random, facts.length, used) : undefined;
    const carrier: FactCarrier | undefined = fact ? random.pick(["user", "tool", "assistant"] as const) : undefined;
    if (fact && carrier) facts.push({ ...fact, turn, carrier });

    if (!fact && random.chance(0.15)) {
      turns.push({
        user: random.pick(CHIT_CHAT),
        replies: [{ text: random.pick(["You're welcome.", "Anytime.", "Glad it helps."]) }],
      });
      stored += 2;
      continue;
    }
    const user = `${prose(random, random.int(1, 3))}${carrier === "user" ? ` ${fact!.statement}` : ""}`;
    const replies: PlannedReply[] = [];
    if (random.chance(0.6)) {
      const agent = random.pick(SUB_AGENTS);
      replies.push({
        calls: [{ name: `transfer_to_${agent}`, args: {}, result: `Successfully transferred to ${agent}` }],
      });
    }
    const rounds = carrier === "tool" ? Math.max(1, random.int(0, 2)) : random.int(0, 2);
    const factRound = carrier === "tool" ? random.int(0, rounds - 1) : -1;
    for (let round = 0; round < rounds; round++) {
      const parallel = random.chance(0.3) ? random.int(2, 3) : 1;
      const factCall = round === factRound ? random.int(0, parallel - 1) : -1;
      replies.push({
        calls: Array.from({ length: parallel }, (_, index) => {
          const tool = random.pick(WORK_TOOLS);
          return {
            name: tool,
            args: callArgs(tool),
            result: bulkyResult(random, tool, index === factCall ? fact!.statement : undefined),
          };
        }),
      });
    }
    const answer = `${prose(random, random.int(1, 3))}${carrier === "assistant" ? ` ${fact!.statement}` : ""}`;
    replies.push({ text: answer });
    turns.push({ user, replies });
    stored += 1 + replies.reduce((sum, reply) => sum + ("calls" in reply ? 1 + reply.calls.length : 1), 0);
  }
  return { seed, turns, facts, messages: stored };
}

/** The final probe turn: every planted fact's question at once. */
export function probeQuestion(conversation: Conversation): string {
  return `Before we close, answer from what you know: ${conversation.facts.map((fact) => fact.question).join(" ")}`;
}
