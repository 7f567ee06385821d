/** The store seam: the public names of store/ (one ThreadStore per checkpointer, whatever its backend). */
export {
  threadStoreFor,
  type ThreadStore,
  type ThreadStoreOptions,
  type ThreadRow,
  type StoredCheckpoint,
  type RecallBackend,
  type ReplaceHeadRequest,
  type ReplaceOutcome,
} from "./thread-store.js";
export type { ThreadHead } from "./read-head.js";
export type { MessagesStorage } from "./checkpoint-messages.js";
export { TRANSCRIPT_NAMESPACE, transcriptNamespace } from "./recall-index/base-store-index.js";
export { transcriptHome, type TranscriptPlaces } from "./transcript-home.js";
