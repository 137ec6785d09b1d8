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
CREATE UNIQUE INDEX `hook_versions_number` ON `hook_versions` (`workspace_uid`,`target`,`generation`,`number`);