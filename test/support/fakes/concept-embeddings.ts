/**
 * A deterministic LangChain `Embeddings` for tests: a text's vector counts its words by concept. Words of one
 * concept group (a word and its synonyms, given to the constructor) share a dimension; every other word gets a
 * dimension of its own by hash. So "automobile" and "sedan" are close when they share a group, and far from a text
 * without either, whatever other words they hold. Counts the texts it embeds.
 */
import { Embeddings } from "@langchain/core/embeddings";
import { createHash } from "node:crypto";

export class ConceptEmbeddings extends Embeddings {
  readonly model: string;
  /** Texts embedded by embedDocuments, in order. */
  readonly embedded: string[] = [];
  private readonly groups = new Map<string, number>();
  private readonly groupCount: number;

  constructor(
    groups: ReadonlyArray<readonly string[]>,
    { dimensions = 64, model = "concepts-v1" }: { dimensions?: number; model?: string } = {},
  ) {
    super({});
    this.model = model;
    this.dimensions = dimensions;
    this.groupCount = groups.length;
    groups.forEach((group, index) => group.forEach((word) => this.groups.set(word.toLowerCase(), index)));
  }

  private readonly dimensions: number;

  private vector(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const group = this.groups.get(word);
      // Groups take the first dimensions, at three times a plain word's weight; other words hash into the rest.
      const dimension =
        group ??
        this.groupCount +
          (createHash("sha256").update(word).digest().readUInt32BE(0) % (this.dimensions - this.groupCount));
      vector[dimension] = vector[dimension]! + (group !== undefined ? 3 : 1);
    }
    return vector;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    this.embedded.push(...documents);
    return documents.map((document) => this.vector(document));
  }

  async embedQuery(document: string): Promise<number[]> {
    return this.vector(document);
  }
}
