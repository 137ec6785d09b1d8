// What a lifecycle route acts on once its path is resolved. Tool adapters and
// workspace files share the draft, deployment and log routes; each kind
// resolves its path to one of these with its own rules.
import type { Context } from "hono";
import type { FileRevisionView, RevisionRow, RevisionView } from "../../../shared/deploy/revisions";
import type { JsonObject } from "../../../shared/json";
import type { FileKind } from "../../../shared/files/paths";
import type { Target } from "../../../shared/lifecycle/target";
import type { Result } from "../../../shared/result";
import type { AdapterStage } from "../../../shared/sandbox/types";
import type { Diagnostic } from "../compiler";
import type { ApiEnv } from "../types";

/** The workspace, the lifecycle target, and whether it takes writes. */
export interface ResolvedTarget {
  workspaceUid: string;
  target: Target;
  /** Used in the export's file name. */
  label: string;
  /** Throws the problem that refuses a write (history-only targets), or does nothing. */
  refuseWrite: (action: string) => void;
}

export type Resolver = (c: Context<ApiEnv>) => Promise<ResolvedTarget>;

/** What compiling a version yields: everything its revision stores, and the compile route's answer. */
export interface CompiledRevision {
  code: string;
  hash: string;
  compiledBytes: number;
  config: JsonObject;
  publicContract: JsonObject | null;
  stages: AdapterStage[];
  /** Workspace files: exported functions or plugin hooks; null for tool adapters. */
  exports: string[] | null;
  /** What `POST …/compile` answers besides `version`: a tool adapter's contract and stages, a file's exports. */
  summary: { compiledBytes: number; hash: string } & (
    | { publicContract: JsonObject | null; stages: AdapterStage[] }
    | { path: string; kind: FileKind; exports: string[] }
  );
}

/** A lifecycle target as the deployment routes see it: its kind's compiler and rules. */
export interface DeployTarget extends ResolvedTarget {
  compile(source: string, config: JsonObject): Promise<Result<CompiledRevision, Diagnostic[]>>;
  /** The upstream definition a revision is compiled against; "" for targets without one. */
  definitionHash: string;
  /** Throws the problem that refuses moving this target's pointers, or does nothing. */
  refuseDeploy(action: string): void;
  /** A revision as the routes answer it. */
  revisionView(row: RevisionRow): RevisionView | FileRevisionView;
}

export type DeployResolver = (c: Context<ApiEnv>) => Promise<DeployTarget>;
