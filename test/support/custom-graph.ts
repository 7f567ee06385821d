/**
 * A hand-written StateGraph with more than messages: a `todos` channel, a `files` channel (deepagents-style state),
 * a sub-agent compiled as a subgraph (its checkpoints live in their own namespace), and an approval step that
 * pauses at interrupt().
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  todos: Annotation<string[]>({ reducer: (_, next) => next, default: () => [] }),
  files: Annotation<Record<string, string>>({
    reducer: (current, next) => ({ ...current, ...next }),
    default: () => ({}),
  }),
});

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${++counter}`;

function lastHuman(messages: BaseMessage[]): string {
  const human = [...messages].reverse().find((message) => HumanMessage.isInstance(message));
  return human ? String(human.content) : "";
}

export function createCustomGraph(checkpointer: BaseCheckpointSaver) {
  const researcher = new StateGraph(MessagesAnnotation)
    .addNode("research", async (state) => ({
      messages: [
        new AIMessage({
          id: nextId("research"),
          name: "researcher",
          content: `Research notes on: ${lastHuman(state.messages).slice(0, 60)}`,
        }),
      ],
    }))
    .addEdge(START, "research")
    .addEdge("research", END)
    .compile();

  return new StateGraph(State)
    .addNode("plan", async (state) => {
      const text = lastHuman(state.messages);
      return {
        todos: [...state.todos, `follow up: ${text.slice(0, 30)}`],
        files: { [`notes-${state.todos.length}.md`]: text },
      };
    })
    .addNode("researcher", researcher)
    .addNode("approve", async (state) => {
      if (/approve/i.test(lastHuman(state.messages))) {
        const answer = interrupt({ question: "Approve this?" });
        return { messages: [new AIMessage({ id: nextId("approved"), content: `Approval answer: ${String(answer)}` })] };
      }
      return {
        messages: [
          new AIMessage({
            id: nextId("answer"),
            name: "supervisor",
            content: `Noted: ${lastHuman(state.messages).slice(0, 80)}`,
          }),
        ],
      };
    })
    .addEdge(START, "plan")
    .addEdge("plan", "researcher")
    .addEdge("researcher", "approve")
    .addEdge("approve", END)
    .compile({ checkpointer });
}
