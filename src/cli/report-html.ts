/**
 * `report --html`: one self-contained page (inline styles, inline SVG, a few lines of script; nothing fetched when
 * it is viewed) drawing a ThreadReport — the saw-tooth of tokens over turns with each compaction marked, each
 * compaction's removed messages and summary (expandable), the transcript with a search box, and the storage.
 */
import { andSummaries } from "./format.js";
import { checkpointsInWords, type ReportCompaction, type ThreadReport, type TranscriptLine } from "./report-data.js";

const WIDTH = 960;
const HEIGHT = 320;
const MARGIN = { top: 16, right: 24, bottom: 36, left: 64 };

function escape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!,
  );
}

const thousands = (value: number) => value.toLocaleString("en");

function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  return `${(value / 1024 / 1024).toFixed(1)} MB`;
}

function chart(report: ThreadReport): string {
  const { points, compactions, limit } = report;
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const top = Math.max(limit, ...points.map((point) => point.tokens)) * 1.08 || 1;
  const x = (index: number) =>
    MARGIN.left + (points.length <= 1 ? innerWidth / 2 : (index / (points.length - 1)) * innerWidth);
  const y = (tokens: number) => MARGIN.top + innerHeight - (tokens / top) * innerHeight;
  const line = points.map((point, index) => `${x(index).toFixed(1)},${y(point.tokens).toFixed(1)}`).join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => Math.round(top * share));
  const lastTurn = points.at(-1)?.turn ?? 0;
  const markers = compactions
    .map(
      (compaction, index) =>
        `<a href="#compaction-${index + 1}"><line class="compaction-rule" x1="${x(compaction.point).toFixed(1)}" x2="${x(compaction.point).toFixed(1)}" y1="${MARGIN.top}" y2="${MARGIN.top + innerHeight}"/>` +
        `<circle class="compaction-marker" data-compaction="${index + 1}" cx="${x(compaction.point).toFixed(1)}" cy="${y(compaction.tokensAfter).toFixed(1)}" r="6">` +
        `<title>Compaction ${index + 1} after turn ${compaction.turn}: ${thousands(compaction.tokensBefore)} → ${thousands(compaction.tokensAfter)} tokens</title></circle></a>`,
    )
    .join("");
  return `<svg id="tokens-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="Tokens of the thread over its turns, compactions marked">
  ${ticks.map((tick) => `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}"/><text class="axis" x="${MARGIN.left - 8}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${thousands(tick)}</text>`).join("\n  ")}
  <line class="limit-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(limit).toFixed(1)}" y2="${y(limit).toFixed(1)}"/>
  <text class="axis limit-label" x="${WIDTH - MARGIN.right}" y="${(y(limit) - 6).toFixed(1)}" text-anchor="end">limit ${thousands(limit)}</text>
  <polyline class="tokens-line" data-points="${points.length}" points="${line}"/>
  ${markers}
  <text class="axis" x="${MARGIN.left}" y="${HEIGHT - 8}">turn 1</text>
  <text class="axis" x="${WIDTH - MARGIN.right}" y="${HEIGHT - 8}" text-anchor="end">turn ${lastTurn}</text>
</svg>`;
}

function who(message: { role: string; name?: string }): string {
  return message.name ? `${message.name} (${message.role})` : message.role;
}

function compactionSection(compaction: ReportCompaction, index: number): string {
  const removed = compaction.removed
    .map((message) => `<li><b>${escape(who(message))}</b>: ${escape(message.text)}</li>`)
    .join("");
  return `<details class="compaction" id="compaction-${index + 1}">
  <summary>Compaction ${index + 1}, after turn ${compaction.turn}: ${thousands(compaction.tokensBefore)} → ${thousands(compaction.tokensAfter)} tokens, ${compaction.messagesBefore} → ${compaction.messagesAfter} messages${compaction.summarizer ? ` (${escape(compaction.summarizer)})` : ""}${compaction.superseded ? " — superseded by a turn (nothing lost)" : ""}</summary>
  <h4>What its summary kept</h4>
  <pre class="summary">${escape(compaction.summary ?? "(no summary: a strategy removed messages)")}</pre>
  <h4>What it took out of the head (${compaction.removed.length} messages, all in the transcript below)</h4>
  <ol class="removed">${removed}</ol>
</details>`;
}

function transcriptRow(line: TranscriptLine, index: number): string {
  return `<tr class="transcript-row ${line.where}" data-text="${escape(`${who(line)} ${line.text}`.toLowerCase())}"><td>${index + 1}</td><td>${line.where}</td><td>${escape(who(line))}</td><td>${escape(line.text)}</td></tr>`;
}

export function reportHtml(report: ThreadReport): string {
  const { storage } = report;
  const stored =
    "checkpointBytes" in storage
      ? `${checkpointsInWords(storage, thousands)}, ${bytes(storage.checkpointBytes)} of checkpoints and ${bytes(storage.writeBytes)} of pending writes; ${thousands(storage.indexEntries)} compacted messages in the recall index`
      : `${checkpointsInWords(storage, thousands)} (this saver does not report bytes); ${thousands(storage.indexEntries)} compacted messages in the recall index`;
  const head = report.points.at(-1);
  const summaryRows = report.transcript.filter((line) => line.where === "summary").length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thread ${escape(report.threadId)} — compaction report</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #1d2330; padding: 0 16px; }
  h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; } h4 { margin: 10px 0 4px; font-size: 13px; }
  .facts { color: #4b5565; }
  svg { max-width: 100%; height: auto; background: #fafbfc; border: 1px solid #e3e6ea; }
  .grid { stroke: #e8eaee; } .axis { font-size: 11px; fill: #6b7280; }
  .limit-line { stroke: #d14343; stroke-dasharray: 6 4; } .limit-label { fill: #d14343; }
  .tokens-line { fill: none; stroke: #2f6fdf; stroke-width: 2; }
  .compaction-rule { stroke: #f0a020; stroke-width: 1; stroke-dasharray: 2 3; }
  .compaction-marker { fill: #f0a020; stroke: #fff; stroke-width: 2; cursor: pointer; }
  details.compaction { border: 1px solid #e3e6ea; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
  details.compaction summary { cursor: pointer; }
  pre.summary { white-space: pre-wrap; background: #f5f7fa; padding: 8px; border-radius: 4px; }
  ol.removed { max-height: 260px; overflow: auto; font-size: 13px; }
  #search { width: 100%; padding: 6px 8px; font-size: 14px; margin-bottom: 8px; box-sizing: border-box; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  td { border-top: 1px solid #eef0f3; padding: 3px 6px; vertical-align: top; }
  td:nth-child(4) { white-space: pre-wrap; word-break: break-word; }
  tr.compacted td:nth-child(2) { color: #8a6d1d; } tr.summary { background: #fff8e6; } tr.head td:nth-child(2) { color: #2f6fdf; }
</style>
</head>
<body>
<h1>Thread ${escape(report.threadId)}</h1>
<p class="facts">Head ${escape(report.headCheckpointId)}: ${thousands(head?.tokens ?? 0)} tokens in ${thousands(head?.messages ?? 0)} messages against a limit of ${thousands(report.limit)}; ${report.compactions.length} compaction(s) over ${head?.turn ?? 0} turn(s). Written ${escape(report.generatedAt)}.</p>
<h2>Tokens over the turns</h2>
${chart(report)}
<h2>Compactions</h2>
${report.compactions.length === 0 ? "<p>None yet.</p>" : report.compactions.map(compactionSection).join("\n")}
<h2>Transcript (${report.transcript.length - summaryRows} messages${andSummaries(summaryRows)}: compacted ones from the recall index, then the head)</h2>
<input id="search" type="search" placeholder="Search the whole conversation" aria-label="Search the transcript">
<p id="search-count" class="facts"></p>
<table id="transcript"><tbody>
${report.transcript.map(transcriptRow).join("\n")}
</tbody></table>
<h2>Storage</h2>
<p id="storage">${stored}.</p>
<script>
  const rows = [...document.querySelectorAll(".transcript-row")];
  const count = document.getElementById("search-count");
  document.getElementById("search").addEventListener("input", (event) => {
    const words = event.target.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const match = words.every((word) => row.dataset.text.includes(word));
      row.hidden = !match;
      if (match) shown++;
    }
    count.textContent = words.length ? shown + " of " + rows.length + " messages match" : "";
  });
</script>
</body>
</html>
`;
}
