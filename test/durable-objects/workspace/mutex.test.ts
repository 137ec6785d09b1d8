import { describe, expect, it } from "vitest";
import { Mutex } from "../../../durable-objects/workspace/mutex";

describe("Mutex", () => {
  it("runs tasks one at a time across awaits, in call order, and a failure does not block the next", async () => {
    const mutex = new Mutex();
    const log: string[] = [];
    const task = (name: string, fail = false) =>
      mutex.run(async () => {
        log.push(`${name}:start`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task("a"), task("b", true), task("c")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
  });
});
