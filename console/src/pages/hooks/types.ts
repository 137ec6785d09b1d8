// The API's answers the hook pages read, as its routes type them (hono/client).
import type { InferResponseType } from "hono/client";
import type { api, fileTestApi, lifecycleApi, toolConsoleApi } from "../../api/client";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

type Lifecycle = ReturnType<typeof lifecycleApi>;
type Workspace = (typeof api.v1.workspaces)[":ws"];

export type HookState = InferResponseType<Lifecycle["index"]["$get"], 200>;
export type Draft = HookState["draft"];
export type Deployments = HookState["deployments"];
export type SaveAnswer = InferResponseType<Lifecycle["draft"]["$put"], 200>;
export type VersionMeta = InferResponseType<Lifecycle["versions"]["$get"], 200>["items"][number];
export type VersionFull = InferResponseType<Lifecycle["versions"][":n"]["$get"], 200>;
export type Revision = InferResponseType<Lifecycle["revisions"]["$get"], 200>["items"][number];
export type TestStatus = InferResponseType<Lifecycle["versions"][":n"]["test-status"]["$get"], 200>;

type ToolTestAnswer = InferResponseType<ReturnType<typeof toolConsoleApi>["test"]["$post"], 200>;
type FileTestAnswer = InferResponseType<ReturnType<typeof fileTestApi>["test"]["$post"], 200>;
type KeysOf<U> = U extends unknown ? keyof U : never;
type FieldOf<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
/** One object type for a union: the fields every member has, and the others as optional. */
type Loose<U> = { [K in keyof U]: U[K] } & { [K in Exclude<KeysOf<U>, keyof U>]?: FieldOf<U, K> };

/** A test console answer, tool stage or file function, passed or failed, read field by field. */
export type TestAnswer = Loose<ToolTestAnswer | FileTestAnswer>;

export type Tool = InferResponseType<Workspace["tools"][":tool"]["$get"], 200>;
export type Quotas = InferResponseType<Workspace["quotas"]["$get"], 200>;
export type Quota = Quotas["saves"];
