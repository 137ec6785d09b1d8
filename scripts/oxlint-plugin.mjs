// Rules of this repository that oxlint runs as a JS plugin (`jsPlugins` in .oxlintrc.json).
//
// `rayrun/no-restricted-syntax` is ESLint's `no-restricted-syntax`, which oxlint has no
// native port of: each option is an esquery selector, or `{ selector, message }`, and
// every node it matches is reported. The configuration, not this file, says what is
// banned and why, so a pattern is banned by naming it there.

const noRestrictedSyntax = {
  meta: {
    type: "suggestion",
    docs: { description: "Disallow the syntax the given selectors match" },
    schema: {
      type: "array",
      items: {
        oneOf: [
          { type: "string" },
          {
            type: "object",
            properties: { selector: { type: "string" }, message: { type: "string" } },
            required: ["selector"],
            additionalProperties: false,
          },
        ],
      },
    },
    messages: { restrictedSyntax: "{{message}}" },
  },
  create(context) {
    const visitors = {};
    for (const option of context.options) {
      const selector = typeof option === "string" ? option : option.selector;
      const message =
        typeof option === "string" || option.message === undefined
          ? `Using '${selector}' is not allowed.`
          : option.message;
      visitors[selector] = (node) =>
        context.report({ node, messageId: "restrictedSyntax", data: { message } });
    }
    return visitors;
  },
};

export default {
  meta: { name: "rayrun" },
  rules: { "no-restricted-syntax": noRestrictedSyntax },
};
