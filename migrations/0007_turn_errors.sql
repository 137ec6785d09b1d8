ALTER TABLE `hook_runs` ADD `turn_error` integer;--> statement-breakpoint
ALTER TABLE `hook_runs` ADD `attempt` integer;