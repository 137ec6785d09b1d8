CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`secret_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`actor` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_secret_hash_unique` ON `api_keys` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_workspace` ON `api_keys` (`workspace_uid`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`uid` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `services` (
	`uid` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`payload_capture` integer DEFAULT false NOT NULL,
	`authorization_secret` text,
	`legacy` integer DEFAULT false NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`refreshed_at` text,
	`deleted_at` text,
	`deleted_by` text,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `services_workspace` ON `services` (`workspace_uid`);--> statement-breakpoint
CREATE UNIQUE INDEX `services_live_name` ON `services` (`workspace_uid`,`name`) WHERE "services"."deleted_at" is null;--> statement-breakpoint
CREATE TABLE `tools` (
	`uid` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`service_uid` text NOT NULL,
	`upstream_name` text NOT NULL,
	`public_name` text,
	`description` text,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`definition_hash` text NOT NULL,
	`review_state` text DEFAULT 'accepted' NOT NULL,
	`pending_hash` text,
	`pending_definition` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`accepted_by` text,
	`accepted_at` text,
	`removed_at` text,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`service_uid`) REFERENCES `services`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_service_upstream_name` ON `tools` (`service_uid`,`upstream_name`);--> statement-breakpoint
CREATE INDEX `tools_workspace` ON `tools` (`workspace_uid`);--> statement-breakpoint
CREATE TABLE `hook_reset_events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`target` text NOT NULL,
	`actor` text NOT NULL,
	`at` text NOT NULL,
	`versions_removed` integer NOT NULL,
	`revisions_removed` integer NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hook_reset_events_target` ON `hook_reset_events` (`workspace_uid`,`target`);--> statement-breakpoint
CREATE TABLE `hook_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`target` text NOT NULL,
	`generation` integer NOT NULL,
	`number` integer NOT NULL,
	`source` text NOT NULL,
	`config` text NOT NULL,
	`formatted` integer NOT NULL,
	`bytes` integer NOT NULL,
	`content_hash` text NOT NULL,
	`actor` text NOT NULL,
	`key_id` text NOT NULL,
	`channel` text NOT NULL,
	`note` text,
	`restored_from` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hook_versions_number` ON `hook_versions` (`workspace_uid`,`target`,`generation`,`number`);--> statement-breakpoint
CREATE TABLE `hook_pointer_events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`target` text NOT NULL,
	`channel` text NOT NULL,
	`action` text NOT NULL,
	`revision_id` text,
	`previous_revision_id` text,
	`actor` text NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hook_pointer_events_target` ON `hook_pointer_events` (`workspace_uid`,`target`);--> statement-breakpoint
CREATE TABLE `hook_revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`target` text NOT NULL,
	`generation` integer NOT NULL,
	`version` integer NOT NULL,
	`code_hash` text NOT NULL,
	`code_key` text NOT NULL,
	`compiled_bytes` integer NOT NULL,
	`public_contract` text,
	`stages` text NOT NULL,
	`exports` text,
	`tools` text,
	`config` text NOT NULL,
	`definition_hash` text NOT NULL,
	`actor` text NOT NULL,
	`key_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hook_revisions_target` ON `hook_revisions` (`workspace_uid`,`target`,`generation`);--> statement-breakpoint
CREATE UNIQUE INDEX `hook_revisions_identity` ON `hook_revisions` (`workspace_uid`,`target`,`generation`,`version`,`code_hash`,`definition_hash`);--> statement-breakpoint
CREATE TABLE `hook_test_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`target` text NOT NULL,
	`generation` integer NOT NULL,
	`version` integer NOT NULL,
	`stage` text NOT NULL,
	`input` text NOT NULL,
	`report` text NOT NULL,
	`ok` integer NOT NULL,
	`code` text,
	`counts` integer NOT NULL,
	`actor` text NOT NULL,
	`key_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hook_test_runs_version` ON `hook_test_runs` (`workspace_uid`,`target`,`generation`,`version`);--> statement-breakpoint
CREATE TABLE `workspace_configs` (
	`workspace_uid` text PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`version` integer NOT NULL,
	`etag` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `hook_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`tool_uid` text,
	`tool_name` text,
	`stage` text NOT NULL,
	`channel` text NOT NULL,
	`outcome` text NOT NULL,
	`code` text,
	`revision_id` text,
	`request_id` text NOT NULL,
	`duration_ms` real NOT NULL,
	`fuel_used` integer NOT NULL,
	`shadow_differed` integer,
	`loop` text,
	`plugin` text,
	`at` text NOT NULL,
	`details` text,
	`details_captured_at` text,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hook_runs_workspace` ON `hook_runs` (`workspace_uid`,`id`);--> statement-breakpoint
CREATE INDEX `hook_runs_target` ON `hook_runs` (`workspace_uid`,`target`,`id`);--> statement-breakpoint
CREATE INDEX `hook_runs_request` ON `hook_runs` (`workspace_uid`,`request_id`);--> statement-breakpoint
CREATE INDEX `hook_runs_details` ON `hook_runs` (`workspace_uid`,`id`) WHERE "hook_runs"."details" is not null;--> statement-breakpoint
CREATE TABLE `retention_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`after_workspace` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `access_profiles` (
	`workspace_uid` text NOT NULL,
	`name` text NOT NULL,
	`allowed_tools` text,
	`blocked_tools` text NOT NULL,
	`approval_risk` text,
	`updated_by` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`workspace_uid`, `name`),
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `api_key_profiles` (
	`key_id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`profile` text NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`tool_uid` text NOT NULL,
	`tool_name` text NOT NULL,
	`revision_id` text,
	`source` text NOT NULL,
	`reason` text NOT NULL,
	`arguments` text NOT NULL,
	`call_hash` text NOT NULL,
	`public_hash` text NOT NULL,
	`key_id` text NOT NULL,
	`actor` text NOT NULL,
	`request_id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`decided_by` text,
	`decided_at` text,
	`used_at` text,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `approvals_workspace_status` ON `approvals` (`workspace_uid`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `tool_gateway_settings` (
	`tool_uid` text PRIMARY KEY NOT NULL,
	`workspace_uid` text NOT NULL,
	`risk` text,
	`projection` text,
	`updated_by` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `workspace_secrets` (
	`workspace_uid` text NOT NULL,
	`name` text NOT NULL,
	`ciphertext` text NOT NULL,
	`iv` text NOT NULL,
	`key_version` integer NOT NULL,
	`updated_by` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`workspace_uid`, `name`),
	FOREIGN KEY (`workspace_uid`) REFERENCES `workspaces`(`uid`) ON UPDATE no action ON DELETE no action
);
