/**
 * `npm publish` runs this first (prepublishOnly): the manifest fields npm's page and a user's tools link from must be
 * set before a version goes out. The project's public repository URL is the maintainers' to give; until it is in
 * package.json, publishing stops here and says which field is missing.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

interface Manifest {
  repository?: string | { type?: string; url?: string };
  homepage?: string;
  bugs?: string | { url?: string };
}

/** What the manifest lacks before it can be published ([] when nothing). */
export function missingForPublish(manifest: Manifest): string[] {
  const missing: string[] = [];
  const repository = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  if (!repository)
    missing.push(
      '"repository" (e.g. { "type": "git", "url": "git+https://github.com/<owner>/langgraph-compaction.git" })',
    );
  return missing;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const missing = missingForPublish(
    JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as Manifest,
  );
  if (missing.length > 0) {
    console.error(`package.json is not ready to publish; set ${missing.join(", ")}.`);
    process.exit(1);
  }
}
