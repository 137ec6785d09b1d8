// /w/:ws/files/:path — one workspace file (path URL-encoded as one segment): the same views as a
// tool's hook, with the file test console.
import { useMemo } from "preact/hooks";
import { PageHeader } from "../../components/shell";
import { HookWorkspace } from "../hooks/hook-workspace";
import { fileTarget } from "../hooks/target";
import { filePathProblem } from "./file-path";

/**
 * The router's props: `path` there is the location's path, so the `:path` parameter is read from
 * `params` (decoded by the router; a `:path+` route would give the same value).
 */
export function FilePage({ ws, params }: { ws?: string; params?: Record<string, string | undefined> }) {
  const wsId = ws ?? params?.ws ?? "";
  const filePath = params?.path ?? "";
  const target = useMemo(() => fileTarget(wsId, filePath), [wsId, filePath]);
  const trail = [{ label: "Files", href: `/w/${wsId}/files` }];
  const problem = filePathProblem(filePath);
  if (problem !== null) {
    return (
      <>
        <PageHeader title={filePath || "File"} trail={trail} />
        <div class="problem" role="alert">
          <div class="problem-title">Not a workspace file path</div>
          <div class="problem-detail">{problem}</div>
        </div>
      </>
    );
  }
  const subtitle =
    target.kind === "file" && target.fileKind === "plugin"
      ? "Plugin: its default export's hooks run on tool calls and LLM requests."
      : "Library file: request hooks and helpers, run by the workspace config's pre_llm_hook.";
  return <HookWorkspace target={target} title={filePath} subtitle={subtitle} trail={trail} />;
}
