import { defineConfig } from "vite";

// The build goes into the Python package, committed, so that `pip install trainboard` needs no Node. File names carry
// no hashes and the output has no timestamps: a fresh build must equal the committed one byte for byte.
export default defineConfig({
  base: "./",
  build: {
    outDir: "../trainboard/http/ui/app",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    modulePreload: false,
    rollupOptions: {
      output: {
        entryFileNames: "assets/app.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
      },
    },
  },
});
