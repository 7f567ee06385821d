#!/usr/bin/env node
import { listenForStop } from "./stop-signal.js";

// `watch` hears SIGINT and SIGTERM before anything else loads (a stop during start-up is a clean stop).
if (process.argv.slice(2).includes("watch")) listenForStop();
const { runCli } = await import("./main.js");
await runCli();
