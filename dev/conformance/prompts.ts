// Prompts for the prompts-* scenarios, plus the argument completion that
// completion-complete asks for (ref/prompt test_prompt_with_arguments, arg1).
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { RED_PIXEL_PNG } from "./fixtures.ts";

// The spec's example values, plus the values the conformance suite itself
// passes as arguments, so a completion for "test" is not empty either.
const ARG1_SUGGESTIONS = ["paris", "park", "party", "testValue1", "testValue2"];

export function registerPrompts(mcp: McpServer): void {
  mcp.registerPrompt("test_simple_prompt", { description: "A simple prompt without arguments" }, () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }));

  mcp.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "A prompt with two required arguments",
      argsSchema: {
        arg1: completable(z.string().describe("First test argument"), (value) =>
          ARG1_SUGGESTIONS.filter((suggestion) => suggestion.startsWith(value)),
        ),
        arg2: z.string().describe("Second test argument"),
      },
    },
    ({ arg1, arg2 }) => ({
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );

  mcp.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A prompt that embeds the resource named by its argument",
      argsSchema: { resourceUri: z.string().describe("URI of the resource to embed") },
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  );

  mcp.registerPrompt("test_prompt_with_image", { description: "A prompt with an image" }, () => ({
    messages: [
      { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));
}
