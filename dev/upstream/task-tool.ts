// A tool the demo upstream runs only as a task (`execution.taskSupport:
// "required"`), as long-running servers do: tools/call creates the task, the
// work finishes a moment later, and tasks/result answers. It asks its client
// to confirm first (elicitation, tied to the task), so a test sees a request
// travel through a task too. Stateful modes only: the task store must outlive
// the request that created the task.
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export const TASK_CAPABILITIES = { tasks: { requests: { tools: { call: {} } } } } as const;

/** The stores a server needs for tasks (one per server). */
export const taskStores = () => ({
  taskStore: new InMemoryTaskStore(),
  taskMessageQueue: new InMemoryTaskMessageQueue(),
});

export function registerTaskTool(server: McpServer): void {
  server.experimental.tasks.registerToolTask(
    "slow_report",
    {
      description: "Writes a report as a task, after the client confirms",
      inputSchema: { topic: z.string() },
      execution: { taskSupport: "required" },
    },
    {
      createTask: async (args, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 50 });
        const work = async () => {
          // Tied to the task, so the server queues it for tasks/result: the call's own stream is gone.
          const confirmed = await server.server.request(
            {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: `Write the report on ${args.topic}?`,
                requestedSchema: { type: "object", properties: {} },
              },
            },
            ElicitResultSchema,
            { relatedTask: { taskId: task.taskId } },
          );
          await extra.taskStore.storeTaskResult(task.taskId, "completed", {
            content: [{ type: "text", text: `report on ${args.topic} (${confirmed.action})` }],
          });
        };
        work().catch(async (error: unknown) => {
          await extra.taskStore.updateTaskStatus(task.taskId, "failed", String(error));
        });
        return { task };
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) =>
        CallToolResultSchema.parse(await extra.taskStore.getTaskResult(extra.taskId)),
    },
  );
}
