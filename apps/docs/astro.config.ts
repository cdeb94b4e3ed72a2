import starlight from '@astrojs/starlight';
import { defineConfig } from 'astro/config';
import { buildSidebar } from './src/sidebar.ts';

// Everything the site needs ships in dist/: system fonts, bundled code themes and a
// Pagefind index, so it builds and reads with no network. `site` is only known at
// deploy time; without it Astro skips the sitemap, which nothing here relies on.
export default defineConfig({
  ...(process.env.DOCS_SITE_URL ? { site: process.env.DOCS_SITE_URL } : {}),
  // The toolbar's integration browser talks to astro.build; the dev server stays offline without it.
  devToolbar: { enabled: false },
  integrations: [
    starlight({
      title: 'acp-kit',
      description:
        'The Agent Client Protocol v2 prompt lifecycle: insertion receipts, message upserts, replay, and the TypeScript kit that implements them.',
      favicon: '/favicon.svg',
      sidebar: buildSidebar(),
      lastUpdated: false,
      pagination: true,
    }),
  ],
});
