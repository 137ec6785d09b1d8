// Builds the console into console/dist, which the api Worker serves as Workers Static Assets
// (wrangler.toml `[assets]`). Everything the page needs, the TypeScript worker and its lib
// declarations included, is bundled: the console fetches nothing from the internet.
import { preact } from "@preact/preset-vite";
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // The TypeScript language service is one large chunk loaded only by the editor's worker.
    chunkSizeWarningLimit: 4096,
    // The timing report is a note for plugin authors; `npm start` prints the build's output to new users.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  worker: { format: "es" },
});
