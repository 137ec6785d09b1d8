// `…/files/{path}`: a workspace file as a lifecycle target, with the files'
// rules: the path rules, the file compiler, and one owner per plugin name.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import type { Context } from "hono";
import { fileRevisionView } from "../../../shared/deploy/revisions";
import { parseFilePath, pluginSibling, type WorkspaceFile } from "../../../shared/files/paths";
import { ProblemException } from "../../../shared/http/problem";
import { fileTarget } from "../../../shared/lifecycle/target";
import { ok } from "../../../shared/result";
import { compileWorkspaceFile } from "../compiler";
import type { ApiEnv } from "../types";
import type { DeployTarget } from "./types";
import { requireWorkspace } from "./workspace";

export interface FileTarget extends DeployTarget {
  file: WorkspaceFile;
}

/** `{path}` (Hono has already decoded `%2F`) must be a valid workspace file path; the workspace must exist. */
export async function resolveFileTarget(c: Context<ApiEnv>): Promise<FileTarget> {
  const path = c.req.param("path") ?? "";
  const parsed = parseFilePath(path);
  if (!parsed.ok) {
    throw new ProblemException({ code: "invalid_file_path", detail: parsed.error, extensions: { path } });
  }
  const file = parsed.value;
  const workspaceUid = c.req.param("ws") ?? "";
  await requireWorkspace(c.var.db, workspaceUid);
  const target = fileTarget(file.path);
  // `plugins/x.ts` and `plugins/x.js` would both be plugin `x`: the first one to exist owns the name.
  const sibling = pluginSibling(file);
  const owner = sibling !== null && (await fileExists(c, workspaceUid, sibling)) ? sibling : null;
  const refuseTaken = (action: string) => {
    if (owner === null) return;
    throw new ProblemException({
      code: "conflict",
      detail: `${owner} already defines plugin "${file.name}"; ${file.path} cannot ${action}. Reset ${owner} first, or use another name.`,
      extensions: { path: file.path, plugin: file.name, existing: owner },
    });
  };
  return {
    workspaceUid,
    target,
    label: file.path,
    file,
    refuseWrite: refuseTaken,
    refuseDeploy: refuseTaken,
    definitionHash: "",
    compile: async (source, config) => {
      const compiled = await compileWorkspaceFile({ file, source, config });
      if (!compiled.ok) return compiled;
      const { code, hash, compiledBytes, kind, exports } = compiled.value;
      return ok({
        code,
        hash,
        compiledBytes,
        config: compiled.value.config,
        publicContract: null,
        stages: [],
        exports,
        summary: { path: file.path, kind, exports, compiledBytes, hash },
      });
    },
    revisionView: fileRevisionView,
  };
}

/** Whether a file has a saved draft or a deployment. */
async function fileExists(c: Context<ApiEnv>, workspaceUid: string, path: string): Promise<boolean> {
  const { head, pointers } = await workspaceObject(c.env, workspaceUid).getHookState(
    workspaceUid,
    fileTarget(path),
  );
  return head.version > 0 || pointers.active !== null || pointers.shadow !== null;
}
