// Workspace and lifecycle-target resolution for the api routes, and what they
// do to a resolved target that several routes share (versions, pointers): the
// one module routes import for it, so that no route imports another.
export type { CompiledRevision, DeployResolver, DeployTarget, ResolvedTarget, Resolver } from "./types";
export { isDeleted, refuseDeleted, requireService, requireTool, requireWorkspace } from "./workspace";
export { resolveToolDeployTarget, resolveToolTarget, routeTool } from "./tool";
export { type FileTarget, resolveFileTarget } from "./file";
export { compileVersion, isVersionNumber, loadVersion, requireVersion, versionParam } from "./versions";
export { deploymentsView, pointerView } from "./pointers";
export { movePointer, pointerMoved } from "./pointer-moves";
