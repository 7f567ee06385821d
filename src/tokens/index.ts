/** Token counting: the public names of tokens/. */
export { TokenCounter, type TokenCounterOptions, type CountMessagesOptions } from "./token-counter.js";
export { resolveModel, getContextWindow, resolveTokenLimit, DEFAULT_MODEL, type EncodingName, type ModelInfo } from "./models.js";
export type { EngineName } from "./engines.js";
export type { OpenAIToolDefinition, ToolDefinitionLike } from "./tool-definitions.js";
