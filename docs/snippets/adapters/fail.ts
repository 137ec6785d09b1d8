// For `search_release_notes`: a result that names an internal host never reaches the
// agent. The call fails instead, and the log says which title was withheld.
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  after({ result, context }) {
    const leak = result.items.find((item) => item.title.includes(".internal"));
    if (leak !== undefined) {
      context.log.warn("withheld a result naming an internal host", { title: leak.title });
      return {
        action: "fail",
        reason: "internal_host",
        message: "The search result named an internal host, so it was withheld.",
      };
    }
    return { action: "return", result };
  },
});
