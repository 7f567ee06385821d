/**
 * Tokens of tool definitions, by the formula in OpenAI's cookbook (`num_tokens_for_tools`): per function a fixed
 * start cost plus "name:description"; per parameter "name:type:description" plus fixed costs; enum items; a fixed
 * end cost. The start cost is 7 for o200k models (gpt-4o family) and 10 for cl100k models (gpt-4, gpt-3.5).
 */

import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { EncodingName } from "./models.js";

export interface OpenAIToolDefinition {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters?: { properties?: Record<string, { type?: unknown; description?: unknown; enum?: unknown[] }> };
  };
}

/** An OpenAI-format definition, or anything LangChain can convert to one (a `tool(...)`, a StructuredTool). */
export type ToolDefinitionLike = OpenAIToolDefinition | Parameters<typeof convertToOpenAITool>[0];

const PROPERTY_INIT = 3;
const PROPERTY_KEY = 3;
const ENUM_INIT = -3;
const ENUM_ITEM = 3;
const FUNCTIONS_END = 12;

function functionInit(encoding: EncodingName): number {
  return encoding === "cl100k_base" ? 10 : 7;
}

function isOpenAIDefinition(value: unknown): value is OpenAIToolDefinition {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "function" &&
    typeof (value as { function?: { name?: unknown } }).function?.name === "string"
  );
}

export function toOpenAIDefinition(tool: ToolDefinitionLike): OpenAIToolDefinition {
  if (isOpenAIDefinition(tool)) return tool;
  return convertToOpenAITool(tool) as OpenAIToolDefinition;
}

function trimPeriod(text: string): string {
  return text.endsWith(".") ? text.slice(0, -1) : text;
}

export function countToolDefinitions(
  tools: readonly ToolDefinitionLike[],
  encoding: EncodingName,
  countText: (text: string) => number,
): number {
  if (tools.length === 0) return 0;
  let tokens = 0;
  for (const tool of tools) {
    const definition = toOpenAIDefinition(tool).function;
    tokens += functionInit(encoding);
    tokens += countText(`${definition.name}:${trimPeriod(String(definition.description ?? ""))}`);
    const properties = definition.parameters?.properties ?? {};
    const keys = Object.keys(properties);
    if (keys.length > 0) {
      tokens += PROPERTY_INIT;
      for (const key of keys) {
        const property = properties[key] ?? {};
        tokens += PROPERTY_KEY;
        if (Array.isArray(property.enum)) {
          tokens += ENUM_INIT;
          for (const item of property.enum) tokens += ENUM_ITEM + countText(String(item));
        }
        const type = Array.isArray(property.type) ? property.type.join("|") : String(property.type ?? "");
        tokens += countText(`${key}:${type}:${trimPeriod(String(property.description ?? ""))}`);
      }
    }
  }
  return tokens + FUNCTIONS_END;
}
