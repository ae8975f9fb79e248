import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is built into web/dist, which the service serves at `/` (src/http/console.ts).
// `npm run dev` serves it from Vite with the API proxied to a running service (SOCDRILL_URL).
const target = process.env.SOCDRILL_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed file names under /assets/ are cached for a year; index.html never.
    assetsDir: 'assets',
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/login': { target, changeOrigin: false },
      '/logout': { target, changeOrigin: false },
    },
  },
});
