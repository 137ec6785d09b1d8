// `import text from "./part.js?raw"`: the file's text as a string. How each
// loader of the sandbox code gives `?raw` that meaning: see index.ts.
declare module "*.js?raw" {
  const text: string;
  export default text;
}
