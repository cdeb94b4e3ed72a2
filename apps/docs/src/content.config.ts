import { docsLoader } from '@astrojs/starlight/loaders';
import { docsSchema } from '@astrojs/starlight/schema';
import { defineCollection, z } from 'astro:content';
import { changelogLoader } from './changelog/loader.ts';
import { referenceLoader } from './reference/loader.ts';

const release = z.object({ name: z.string(), type: z.enum(['major', 'minor', 'patch']) });

export const collections = {
  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),
  /** Pending changesets and published package changelogs, read from the repository at build time. */
  changelog: defineCollection({
    loader: changelogLoader(),
    schema: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('pending'), releases: z.array(release) }),
      z.object({ kind: z.literal('released'), packageName: z.string() }),
    ]),
  }),
  /**
   * The schema reference, built from @acp-kit/codegen's model of every schema/<version>/schema.json.
   * Its shape is `reference/model.ts`; the loader is the only writer, so it is not re-validated here.
   */
  reference: defineCollection({
    loader: referenceLoader(),
    schema: z.object({ record: z.enum(['version', 'definition']) }).passthrough(),
  }),
};
