export * from "../db/run-types";
export { boundDetails, DETAILS_MAX_BYTES } from "./details";
export { capturesDetails, deferRuns, recordRuns, type CaptureSettings } from "./writer";
export { listRuns, type RunFilters, type RunView } from "./query";
export { runRetention, RETENTION_DEFAULTS, type RetentionOptions, type RetentionReport } from "./retention";
