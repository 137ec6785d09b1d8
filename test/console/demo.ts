// The demo workspace `npm start` seeds, seeded afresh for a console test file, and lookups on it.
import { useSeededDemo } from "../cli/seeded-demo.ts";
import { apiCall } from "./browser.ts";

export interface Demo {
  workspace: string;
  key: string;
  tool: string;
  signInUrl?: string;
}

interface ToolRow {
  uid: string;
  upstreamName: string;
  publicName?: string | null;
}

export function useDemo(name: string): () => Demo {
  const { demo } = useSeededDemo(name);
  return () => demo() as Demo;
}

/** The uid of the demo upstream's tool named `upstreamName`. */
export async function demoTool(demo: Demo, upstreamName: string): Promise<string> {
  const { items } = await apiCall<{ items: ToolRow[] }>(
    demo.key,
    "GET",
    `/v1/workspaces/${demo.workspace}/tools?limit=100`,
  );
  const tool = items.find((t) => t.upstreamName === upstreamName);
  if (!tool) throw new Error(`the demo upstream has no tool ${upstreamName}`);
  return tool.uid;
}
