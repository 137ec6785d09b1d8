export * from "./schema";
export * from "./store";
