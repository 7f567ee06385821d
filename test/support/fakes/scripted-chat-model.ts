/** The scripted chat model the tests and the demo use is the one the package ships (langgraph-compaction/testing). */
export * from "../../../src/testing/scripted-chat-model.js";
