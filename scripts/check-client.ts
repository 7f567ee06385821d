/**
 * `npm run check:client`: the browser entry (`langgraph-compaction/client`, src/client.ts) bundles for the browser —
 * esbuild, platform "browser", every dependency bundled but the SDK the application brings — with no Node built-in
 * reached, and stays small: at most 10 KB minified beyond the SDK. Fails otherwise, naming what was reached.
 */
import { build } from "esbuild";
import { resolve } from "node:path";

const LIMIT_BYTES = 10 * 1024;

const result = await build({
  entryPoints: [resolve(import.meta.dirname, "../src/client.ts")],
  bundle: true,
  platform: "browser",
  format: "esm",
  minify: true,
  write: false,
  metafile: true,
  external: ["@langchain/langgraph-sdk"],
  logLevel: "silent",
}).catch((error: { errors?: Array<{ text: string; location?: { file: string; lineText: string } | null }> }) => {
  console.error("check:client: the browser entry does not bundle for the browser:");
  for (const problem of error.errors ?? [])
    console.error(
      `  ${problem.location?.file ?? ""}: ${problem.text}${problem.location ? ` (${problem.location.lineText.trim()})` : ""}`,
    );
  process.exit(1);
});

const bytes = result.outputFiles[0]!.contents.byteLength;
const inputs = Object.keys(result.metafile.inputs);
const node = inputs.filter((input) => input.startsWith("node:") || input.includes("node_modules"));
if (node.length > 0) {
  console.error(
    `check:client: the browser bundle reaches ${node.join(", ")} (it may hold only this package's own code)`,
  );
  process.exit(1);
}
if (bytes > LIMIT_BYTES) {
  console.error(`check:client: the browser bundle is ${bytes} bytes minified, over ${LIMIT_BYTES}`);
  process.exit(1);
}
console.log(
  `check:client: langgraph-compaction/client bundles for the browser in ${bytes.toLocaleString("en-US")} bytes minified (limit ${LIMIT_BYTES.toLocaleString("en-US")}), from ${inputs.length} files of this package and no Node built-in`,
);
