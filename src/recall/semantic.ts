/**
 * The optional semantic ranking of `searchHistory`: for users with an embedding model (LangChain `Embeddings`), the
 * thread's out-of-head messages are ranked by the cosine of their vector with the query's, and that ranking is fused
 * with the full-text one by reciprocal rank fusion (each hit scores the sum of 1 / (60 + its rank) over the two
 * lists). A message is embedded once per model, on the first search that needs it, and its vector kept beside the
 * index (store/recall-index/vectors.ts). Off unless `semantic` is given; nothing is downloaded.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { CompactionError } from "../errors.js";
import { argument } from "../options/check.js";
import { satisfying, text } from "../options/rules.js";

const SEMANTIC = satisfying((value) => {
  const embeddings = (value as { embeddings?: Partial<EmbeddingsInterface> } | null)?.embeddings;
  return typeof embeddings?.embedDocuments === "function" && typeof embeddings.embedQuery === "function";
}, "{ embeddings } with a LangChain Embeddings (embedDocuments and embedQuery)");
import type { RecallEntry } from "../store/recall-index/types.js";
import { vectorTextHash, type RecallVectors, type StoredVector } from "../store/recall-index/vectors.js";
import { recallLabel } from "../store/recall-index/entries.js";

export interface SemanticRanking {
  /** The embedding model: e.g. `new OpenAIEmbeddings()`, or any LangChain `Embeddings`. */
  embeddings: EmbeddingsInterface;
  /**
   * The name the vectors are kept under: vectors of different models are never compared. @default the class's name
   * and its `model` (or `modelName`) field, e.g. "OpenAIEmbeddings:text-embedding-3-small"
   */
  model?: string;
}

/** The constant of reciprocal rank fusion: a hit's share is 1 / (RRF_K + its rank), rank 1 first. */
export const RRF_K = 60;

/** Each list's candidates that the fusion ranks (the full-text search's, the vectors'). */
export const FUSED_CANDIDATES = 50;

/** The name the model's vectors are kept under. */
export function modelKey({ embeddings, model }: SemanticRanking): string {
  if (model !== undefined) {
    return argument("semantic.model", model, text());
  }
  const named = embeddings as unknown as { model?: unknown; modelName?: unknown };
  const name =
    typeof named.model === "string" ? named.model : typeof named.modelName === "string" ? named.modelName : "";
  return `${embeddings.constructor?.name ?? "Embeddings"}${name ? `:${name}` : ""}`;
}

/** Validates `semantic` (an object with an `embeddings` that embeds documents and queries). */
export function validateSemantic(semantic: unknown): asserts semantic is SemanticRanking | undefined {
  if (semantic === undefined) return;
  argument("semantic", semantic, SEMANTIC);
  modelKey(semantic as SemanticRanking);
}

/** What a message's vector is made of: who said it, when, and what. */
export function vectorText(entry: Pick<RecallEntry, "name" | "date" | "text">): string {
  const label = recallLabel(entry);
  return label ? `${label}: ${entry.text}` : entry.text;
}

function embeddingsFailed(model: string, error: unknown): CompactionError {
  return new CompactionError({
    code: "EMBEDDINGS_FAILED",
    value: model,
    message: `the embedding model ${JSON.stringify(model)} failed: ${error instanceof Error ? error.message : String(error)}`,
    cause: error,
  });
}

function toVector(model: string, value: unknown, dimensions?: number): Float32Array {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((number) => typeof number !== "number" || !Number.isFinite(number)) ||
    (dimensions !== undefined && value.length !== dimensions)
  ) {
    throw embeddingsFailed(
      model,
      new Error(
        `it returned ${Array.isArray(value) ? `a vector of ${value.length} values` : typeof value}${dimensions === undefined ? "" : `, expected ${dimensions} finite numbers`}`,
      ),
    );
  }
  return Float32Array.from(value as number[]);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * `entries` ranked by their vector's cosine with `query`'s, best first (at most `count`). Vectors missing from
 * `vectors` (or made from another text) are embedded in one call and stored first.
 * @throws CompactionError EMBEDDINGS_FAILED when the model throws or returns vectors of the wrong shape.
 */
export async function semanticRank(
  vectors: RecallVectors,
  threadId: string,
  entries: readonly RecallEntry[],
  query: string,
  semantic: SemanticRanking,
  count: number,
): Promise<RecallEntry[]> {
  if (entries.length === 0) return [];
  const model = modelKey(semantic);
  const stored = new Map((await vectors.read(threadId, model)).map((row) => [row.messageId, row]));
  const texts = new Map(entries.map((entry) => [entry.messageId, vectorText(entry)]));
  const missing = entries.filter(
    (entry) => stored.get(entry.messageId)?.hash !== vectorTextHash(texts.get(entry.messageId)!),
  );
  let queryVector: Float32Array;
  let made: StoredVector[] = [];
  try {
    const [documents, asked] = await Promise.all([
      missing.length > 0
        ? semantic.embeddings.embedDocuments(missing.map((entry) => texts.get(entry.messageId)!))
        : Promise.resolve([]),
      semantic.embeddings.embedQuery(query),
    ]);
    queryVector = toVector(model, asked);
    if (!Array.isArray(documents) || documents.length !== missing.length)
      throw new Error(
        `it returned ${Array.isArray(documents) ? documents.length : "no"} vectors for ${missing.length} texts`,
      );
    made = missing.map((entry, index) => ({
      messageId: entry.messageId,
      hash: vectorTextHash(texts.get(entry.messageId)!),
      vector: toVector(model, documents[index], queryVector.length),
    }));
  } catch (error) {
    throw CompactionError.isInstance(error) ? error : embeddingsFailed(model, error);
  }
  await vectors.write(threadId, model, made);
  for (const row of made) stored.set(row.messageId, row);
  return entries
    .map((entry) => {
      const vector = stored.get(entry.messageId)!.vector;
      // A vector stored from another version of the model (other dimensions) ranks last until it is made again.
      return { entry, score: vector.length === queryVector.length ? cosine(vector, queryVector) : -2 };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.entry.checkpointId.localeCompare(b.entry.checkpointId) ||
        a.entry.ordinal - b.entry.ordinal,
    )
    .slice(0, count)
    .map(({ entry }) => entry);
}

/**
 * Reciprocal rank fusion of ranked lists of ids: each id scores the sum of 1 / (RRF_K + rank) over the lists that
 * hold it (rank 1 first). Best first; ties keep the first list's order.
 */
export function reciprocalRankFusion(
  lists: ReadonlyArray<readonly string[]>,
  k = RRF_K,
): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1)));
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
