import { fileURLToPath } from 'node:url';
import starlight from '@astrojs/starlight';
import { defineConfig } from 'astro/config';
import { buildSidebar } from './src/sidebar.ts';
import { machineReadable } from './src/machine-readable/integration.ts';
import { DEFAULT_BRANCH, REPOSITORY_URL, SITE_URL } from './src/site.ts';
import { remarkRepoLinks } from './src/snippets/remark-repo-links.ts';
import { remarkSchemaSnippets } from './src/snippets/remark-schema-snippets.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

// Everything the site needs ships in dist/: system fonts, bundled code themes and a
// Pagefind index, so it builds and reads with no network. `site` (DOCS_SITE_URL, else the SDK's
// homepage) is where the sitemap, llms.txt and canonical links point.
const title = 'acp-kit';
const description =
  'The Agent Client Protocol v2 prompt lifecycle: insertion receipts, message upserts, replay, and the TypeScript kit that implements them.';

export default defineConfig({
  site: SITE_URL,
  // The toolbar's integration browser talks to astro.build; the dev server stays offline without it.
  devToolbar: { enabled: false },
  // Guide JSON snippets come from schema/*/examples or are validated against the schema; a bad one fails the build.
  // Repository files shown on the site (CONTRIBUTING.md, the bridge README) link to the repository.
  markdown: {
    remarkPlugins: [
      [remarkSchemaSnippets, { repoRoot }],
      [remarkRepoLinks, { repoRoot, repositoryUrl: REPOSITORY_URL, branch: DEFAULT_BRANCH }],
    ],
  },
  integrations: [
    starlight({
      title,
      description,
      components: { PageTitle: './src/components/PageTitle.astro' },
      favicon: '/favicon.svg',
      customCss: ['./src/styles/site.css'],
      social: [{ icon: 'github', label: 'Repository', href: REPOSITORY_URL }],
      editLink: { baseUrl: `${REPOSITORY_URL}/edit/${DEFAULT_BRANCH}/apps/docs/` },
      sidebar: buildSidebar(),
      lastUpdated: false,
      pagination: true,
    }),
    // After Starlight, so the pages it built are there to convert.
    machineReadable({ title, description, origin: SITE_URL }),
  ],
});
