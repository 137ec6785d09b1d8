// `…/tools/{tool}/hook`: a tool adapter as a lifecycle target. Its hooks are
// history-only once its service is deleted, and a tool the upstream dropped
// keeps its live deployment but takes no new one.
import type { Context } from "hono";
import { revisionView } from "../../../shared/deploy/revisions";
import { ProblemException } from "../../../shared/http/problem";
import type { JsonObject } from "../../../shared/json";
import { toolTarget } from "../../../shared/lifecycle/target";
import { ok } from "../../../shared/result";
import { compileToolAdapter } from "../compiler";
import type { ApiEnv } from "../types";
import type { DeployTarget, Resolver } from "./types";
import { refuseDeleted, requireTool } from "./workspace";

/** The route's `{ws}` and `{tool}`: an indexed tool of an existing workspace, with its service, or 404. */
export async function routeTool(c: Context<ApiEnv>) {
  const workspaceUid = c.req.param("ws") ?? "";
  const toolUid = c.req.param("tool") ?? "";
  const found = await requireTool(c.var.db, workspaceUid, toolUid);
  return { workspaceUid, toolUid, ...found };
}

export const resolveToolTarget: Resolver = async (c) => {
  const { workspaceUid, toolUid, service } = await routeTool(c);
  return {
    workspaceUid,
    target: toolTarget(toolUid),
    label: toolUid,
    refuseWrite: (action) => refuseDeleted(service, action),
  };
};

/** The tool, its service, and the tool's compiler and rules for the deployment routes. */
export async function resolveToolDeployTarget(c: Context<ApiEnv>) {
  const { workspaceUid, toolUid, tool, service } = await routeTool(c);
  const target: DeployTarget = {
    workspaceUid,
    target: toolTarget(toolUid),
    label: toolUid,
    refuseWrite: (action) => refuseDeleted(service, action),
    definitionHash: tool.definitionHash,
    refuseDeploy: (action) => {
      refuseDeleted(service, action);
      if (tool.removedAt !== null) {
        throw new ProblemException({
          code: "conflict",
          detail: `The upstream no longer offers this tool; it cannot ${action}.`,
        });
      }
    },
    compile: async (source, config) => {
      const compiled = await compileToolAdapter({ source, config });
      if (!compiled.ok) return compiled;
      const { code, hash, compiledBytes, stages } = compiled.value;
      const publicContract = compiled.value.publicContract as JsonObject | null;
      return ok({
        code,
        hash,
        compiledBytes,
        config: compiled.value.config,
        publicContract,
        stages,
        exports: null,
        summary: { publicContract, compiledBytes, hash, stages },
      });
    },
    revisionView,
  };
  return { ...target, tool, service };
}
