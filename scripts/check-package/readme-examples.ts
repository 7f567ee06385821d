/**
 * The TypeScript examples of the README and of every docs/ page as compilable modules: each ```ts block, preceded by
 * declarations of the names it uses without defining (the user's agents, model, checkpointer, history, the wrapper
 * of an earlier block), typed as the user's would be.
 */
const FREE_NAMES: Record<string, string> = {
  createSupervisor: `import { createSupervisor } from "@langchain/langgraph-supervisor";`,
  researcher: `declare const researcher: ReturnType<typeof import("@langchain/langgraph/prebuilt").createReactAgent>;`,
  coder: `declare const coder: ReturnType<typeof import("@langchain/langgraph/prebuilt").createReactAgent>;`,
  llm: `declare const llm: import("@langchain/core/language_models/chat_models").BaseChatModel;`,
  checkpointer: `declare const checkpointer: import("@langchain/langgraph-checkpoint").BaseCheckpointSaver;`,
  messages: `declare const messages: import("@langchain/core/messages").BaseMessage[];`,
  history: `declare const history: import("@langchain/core/messages").BaseMessage[];`,
  tools: `declare const tools: import("langgraph-compaction").ToolDefinitionLike[];`,
  app: `declare const app: import("langgraph-compaction").CompactingSupervisor;`,
  config: `declare const config: { configurable: { thread_id: string } };`,
  threadId: `declare const threadId: string;`,
};

function defines(source: string, name: string): boolean {
  const imported = new RegExp(`import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(source);
  const declared =
    new RegExp(`\\b(const|let|var)\\s+${name}\\b`).test(source) ||
    new RegExp(`\\b(const|let)\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=`).test(source);
  return imported || declared;
}

/** The bodies of the page's ```lang blocks, in order; a block indented under a list item loses its indent. */
export function fencedBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^( *)\`\`\`${lang}\n([\\s\\S]*?)^\\1\`\`\`$`, "gm"))].map(
    ([, indent, body]) =>
      body!
        .split("\n")
        .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
        .join("\n"),
  );
}

/** Every ```ts block of `markdown` (a README or a docs page), each as a module. */
export function readmeExamples(markdown: string): string[] {
  const blocks = fencedBlocks(markdown, "ts");
  return blocks.map((block) => {
    // A name in a comment (or a string) is not a use of it.
    const code = block.replace(/"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/gm, "");
    const prelude = Object.entries(FREE_NAMES)
      .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code) && !defines(block, name))
      .map(([, declaration]) => declaration);
    return `${prelude.join("\n")}\n${block}\nexport {};\n`;
  });
}
