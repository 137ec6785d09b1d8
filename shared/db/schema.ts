// D1 tables (drizzle). `docs/storage.md` says which store is the authority
// for each fact; migrations/ is generated from this file by drizzle-kit.
export * from "./schema-workspaces";
export * from "./schema-services";
export * from "./schema-hooks";
export * from "./schema-deploy";
export * from "./schema-config";
export * from "./schema-logs";
export * from "./schema-gateway";
export * from "./schema-users";
