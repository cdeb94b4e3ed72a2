import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loader } from 'astro/loaders';
import { availableVersions, buildDefinitionEntries, buildVersionEntry, loadVersionModel } from './build.ts';

/**
 * Loads the schema reference at build time: for every schema version present in the
 * repository, one `version/<v>` entry (methods, index) and one `<v>/<Definition>` entry per
 * definition. Schema and example files are watched in dev, so edits show up without a restart.
 */
export function referenceLoader(): Loader {
  return {
    name: 'acp-kit-schema-reference',
    async load({ store, config, generateDigest, watcher, logger }) {
      const repoRoot = fileURLToPath(new URL('../../', config.root));
      const schemaDir = join(repoRoot, 'schema');
      const sync = (): void => {
        store.clear();
        const versions = availableVersions(repoRoot);
        for (const version of versions) {
          const model = loadVersionModel(repoRoot, version);
          const overview = buildVersionEntry(model, version);
          store.set({
            id: `version/${version}`,
            data: { record: 'version', ...overview },
            digest: generateDigest(JSON.stringify(overview)),
          });
          for (const entry of buildDefinitionEntries(model, version, repoRoot)) {
            store.set({
              id: `${version}/${entry.name}`,
              data: { record: 'definition', ...entry },
              digest: generateDigest(JSON.stringify(entry)),
            });
          }
          logger.info(`${version}: ${model.definitions.length} definitions, ${model.methods.length} methods`);
        }
      };
      sync();
      watcher?.add(schemaDir);
      watcher?.on('all', (_event, path) => {
        if (path.startsWith(schemaDir)) sync();
      });
    },
  };
}
