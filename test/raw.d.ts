// Vite's `?raw` imports: a file's text as a string (used for example hook sources).
declare module "*?raw" {
  const text: string;
  export default text;
}
