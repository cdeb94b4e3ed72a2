import { type CompiledValidator, toIssues } from '@acp-kit/schema/runtime';
import type { ValueCheck } from './extension-methods.js';

// Kept out of rpc/index.ts: it reaches @acp-kit/schema, and the browser entry reaches rpc/ only
// through relative modules. Exported from the package's main entry.
/**
 * A {@link ValueCheck} from a JSON Schema compiled by Ajv (`new Ajv2020().compile(schema)`, or an
 * Ajv standalone module), its errors turned into issues by the same mapping as `@acp-kit/schema`'s
 * generated validators (one issue per failing place, alternatives collapsed into what each accepts).
 * The SDK does not bundle Ajv: compile with your own.
 */
export function ajvCheck(validate: CompiledValidator): ValueCheck {
  return (value) => (validate(value) ? undefined : toIssues(validate.errors ?? []));
}
