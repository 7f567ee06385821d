/**
 * createArchiveReaderTool(): the tool an agent uses to read an archived tool output back by the key its pointer
 * names, one page at a time.
 */
import { tool } from "@langchain/core/tools";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { argument } from "../options/check.js";
import { ARCHIVE_READER_FIELDS } from "../options/archive-fields.js";
import { ARCHIVE_READER_TOOL, DEFAULT_ARCHIVE_NAMESPACE, type ArchivedOutput } from "./archive.js";

export interface ArchiveReaderOptions {
  store: BaseStore;
  /** @default ["archived-outputs"] (the archive's default) */
  namespace?: string[];
  /** Characters per page. @default 4000 */
  pageChars?: number;
}

export function createArchiveReaderTool({
  store,
  namespace = DEFAULT_ARCHIVE_NAMESPACE,
  pageChars = 4000,
}: ArchiveReaderOptions) {
  argument("store", store, ARCHIVE_READER_FIELDS.store);
  argument("pageChars", pageChars, ARCHIVE_READER_FIELDS.pageChars);
  return tool(
    async ({ key, page }: { key: string; page?: number }) => {
      const item = await store.get(namespace, key);
      if (!item) return `No archived output with key "${key}".`;
      const { content, tool: source } = item.value as unknown as ArchivedOutput;
      const pages = Math.max(1, Math.ceil(content.length / pageChars));
      const number = Math.min(Math.max(1, Math.floor(page ?? 1)), pages);
      const start = (number - 1) * pageChars;
      const end = Math.min(content.length, start + pageChars);
      return `[archived output of ${source ?? "a tool"}, key "${key}": page ${number} of ${pages}, characters ${start}-${end} of ${content.length}]\n${content.slice(start, end)}`;
    },
    {
      name: ARCHIVE_READER_TOOL,
      description:
        "Read a tool output that was archived to save context, by the key named in its pointer, one page at a time.",
      schema: z.object({
        key: z.string().describe("The archive key from the pointer"),
        page: z.number().int().min(1).optional().describe("Page number, from 1"),
      }),
    },
  );
}
