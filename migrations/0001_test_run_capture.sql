-- Test-console runs keep details only under the capture policy, like hook_runs. The old `input` and `report`
-- columns were kept regardless of that policy, so they are dropped rather than carried over.
ALTER TABLE `hook_test_runs` ADD `details` text;--> statement-breakpoint
ALTER TABLE `hook_test_runs` ADD `details_captured_at` text;--> statement-breakpoint
CREATE INDEX `hook_test_runs_workspace` ON `hook_test_runs` (`workspace_uid`,`id`);--> statement-breakpoint
CREATE INDEX `hook_test_runs_details` ON `hook_test_runs` (`workspace_uid`,`id`) WHERE "hook_test_runs"."details" is not null;--> statement-breakpoint
ALTER TABLE `hook_test_runs` DROP COLUMN `input`;--> statement-breakpoint
ALTER TABLE `hook_test_runs` DROP COLUMN `report`;--> statement-breakpoint
ALTER TABLE `retention_cursors` ADD `steps_done` integer DEFAULT 0 NOT NULL;