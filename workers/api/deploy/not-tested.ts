// The refusal of a deploy whose version has no passing test run. It names the
// ways to make one from where people work: the CLI command for this target and
// version, the console's Test tab, and the route.
import { parseFilePath } from "../../../shared/files/paths";
import { ProblemException } from "../../../shared/http/problem";
import { FILE_TARGET_PREFIX, type Target } from "../../../shared/lifecycle/target";

/** The CLI command that tests `version` of `target`; NAME stands for the function or hook to run. */
export function testCommand(target: Target, version: number): string {
  if (!target.startsWith(FILE_TARGET_PREFIX)) {
    const toolUid = target.slice("tool:".length);
    return `rayrun hooks test --tool ${toolUid} --stage before --version ${version}`;
  }
  const path = target.slice(FILE_TARGET_PREFIX.length);
  const parsed = parseFilePath(path);
  const flag = parsed.ok && parsed.value.kind === "plugin" ? "--hook" : "--export";
  return `rayrun files test ${path} ${flag} NAME --version ${version}`;
}

export function notTested(target: Target, version: number): ProblemException {
  return new ProblemException({
    code: "not_tested",
    detail:
      `Version ${version} has no passing test run, so it cannot be deployed. Test it first: ` +
      `\`${testCommand(target, version)}\`, or in the console choose version ${version} on the Test tab ` +
      `and Run test (the route: POST …/test with "version": ${version}).`,
    extensions: { version },
  });
}
