import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TokenCounter } from "../../src/tokens/token-counter.js";

// OpenAI cookbook, "How to count tokens with tiktoken": the six corporate-jargon messages.
const jargon = [
  new SystemMessage(
    "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
  ),
  new SystemMessage({ name: "example_user", content: "New synergies will help drive top-line growth." }),
  new SystemMessage({ name: "example_assistant", content: "Things working well together will increase revenue." }),
  new SystemMessage({
    name: "example_user",
    content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  }),
  new SystemMessage({
    name: "example_assistant",
    content: "Let's talk later when we're less busy about how to do better.",
  }),
  new HumanMessage("This late pivot means we don't have time to boil the ocean for the client deliverable."),
];

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_current_weather",
    description: "Get the current weather in a given location",
    parameters: {
      type: "object",
      properties: {
        location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
        unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
      },
      required: ["location"],
    },
  },
};

const weatherMessages = [
  new SystemMessage("You are a helpful assistant that can answer to questions about the weather."),
  new HumanMessage("What's the weather like in San Francisco?"),
];

describe("OpenAI cookbook counts", () => {
  it("counts the jargon example as 129 for gpt-4 and 124 for gpt-4o", () => {
    expect(new TokenCounter({ model: "gpt-4" }).countMessages(jargon)).toBe(129);
    expect(new TokenCounter({ model: "gpt-4o" }).countMessages(jargon)).toBe(124);
  });

  it("counts the weather tool example as 105 for gpt-4 and 101 for gpt-4o", () => {
    expect(new TokenCounter({ model: "gpt-4" }).countMessages(weatherMessages, { tools: [weatherTool] })).toBe(105);
    expect(new TokenCounter({ model: "gpt-4o" }).countMessages(weatherMessages, { tools: [weatherTool] })).toBe(101);
  });
});

describe("tool definitions", () => {
  it("counts a LangChain tool like its OpenAI definition", () => {
    const langchainTool = tool(async () => "sunny", {
      name: "get_current_weather",
      description: "Get the current weather in a given location",
      schema: z.object({
        location: z.string().describe("The city and state, e.g. San Francisco, CA"),
        unit: z.enum(["celsius", "fahrenheit"]).describe("The unit of temperature to return").optional(),
      }),
    });
    const counter = new TokenCounter({ model: "gpt-4o" });
    expect(counter.countMessages(weatherMessages, { tools: [langchainTool] })).toBe(101);
  });
});
