// The api Worker's scheduled handler (wrangler `triggers.crons`): one bounded
// retention sweep over hook-run logs per trigger (shared/logs/retention.ts),
// and one over expired browser sessions and sign-in links (stores/sessions.ts).
import { database } from "../../shared/db/client";
import { runRetention } from "../../shared/logs/retention";
import { sweepExpired } from "./stores/sessions";

export async function scheduled(
  controller: ScheduledController,
  env: Env,
  _ctx: ExecutionContext,
): Promise<void> {
  const report = await runRetention(env, { now: controller.scheduledTime });
  console.log(JSON.stringify({ event: "log_retention", cron: controller.cron, ...report }));
  const swept = await sweepExpired(database(env.DB), new Date(controller.scheduledTime).toISOString());
  console.log(JSON.stringify({ event: "session_sweep", cron: controller.cron, ...swept }));
}
