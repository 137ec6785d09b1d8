// The api Worker's scheduled handler (wrangler `triggers.crons`): one bounded
// retention sweep over hook-run logs per trigger. See shared/logs/retention.ts.
import { runRetention } from "../../shared/logs/retention";

export async function scheduled(
  controller: ScheduledController,
  env: Env,
  _ctx: ExecutionContext,
): Promise<void> {
  const report = await runRetention(env, { now: controller.scheduledTime });
  console.log(JSON.stringify({ event: "log_retention", cron: controller.cron, ...report }));
}
