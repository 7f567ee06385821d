export { CompactionError, type CompactionErrorCode } from "./errors.js";
export { TokenCounter, type TokenCounterOptions, type CountMessagesOptions } from "./tokens/token-counter.js";
export {
  resolveModel,
  getContextWindow,
  resolveTokenLimit,
  DEFAULT_ENCODING,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MODEL,
  type EncodingName,
  type ModelInfo,
} from "./tokens/models.js";
export { DEFAULT_ENGINE, type EngineName } from "./tokens/engines.js";
export type { OpenAIToolDefinition, ToolDefinitionLike } from "./tokens/tool-definitions.js";
