/** Archiving bulky tool outputs: the public names of archive/ (SqliteStore is langgraph-compaction/sqlite). */
export { ToolOutputArchive, ARCHIVE_READER_TOOL, type ArchiveOptions, type ArchivedOutput, type ArchiveResult } from "./archive.js";
export { createArchiveReaderTool, type ArchiveReaderOptions } from "./reader-tool.js";
