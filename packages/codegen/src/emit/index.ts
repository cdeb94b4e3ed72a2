import type { SchemaModel } from '../model/model.js';
import type { EmittedFile } from './emitted-file.js';
import { emitKnownValues } from './known-values.js';
import { emitMethodCapabilities } from './method-capabilities.js';
import { emitMethods } from './methods.js';
import { type OfficialNames, emitOfficialAliases } from './official-aliases.js';
import { emitTypes } from './types.js';
import { emitUpdateKinds } from './update-kinds.js';
import { emitValidateWrapper } from './validate-wrapper.js';
import { emitValidators } from './validators.js';

/** A named emitter: turns the model into files, without I/O. */
export interface Emitter {
  /** Shown in the step log, e.g. `emit types`. */
  readonly step: string;
  readonly emit: (model: SchemaModel) => EmittedFile[] | Promise<EmittedFile[]>;
}

/** Options shared by the standard emitters. */
export interface StandardEmitterOptions {
  /** Runtime module for the validator wrapper, relative to the output directory. */
  readonly runtimeModule?: string;
  /** The official SDK's names for our definitions (`schema/parity/names.json`): emits `official-names.ts`. */
  readonly officialNames?: OfficialNames;
  /**
   * When set, also emit `index.ts`: the package entry point naming every generated export, opened
   * with this package documentation (see `emitEntryIndex`).
   */
  readonly entryIndexDoc?: string;
}

/** The emitters `acp-kit-codegen generate` runs, in order. */
export function standardEmitters(options: StandardEmitterOptions = {}): Emitter[] {
  const runtimeModule = options.runtimeModule ?? '../validation-runtime.js';
  const officialNames = options.officialNames;
  return [
    { step: 'emit types', emit: emitTypes },
    { step: 'emit methods', emit: emitMethods },
    { step: 'emit update kinds', emit: emitUpdateKinds },
    { step: 'emit method capabilities', emit: emitMethodCapabilities },
    { step: 'emit known values', emit: emitKnownValues },
    { step: 'emit validators', emit: emitValidators },
    { step: 'emit validate wrapper', emit: (model) => emitValidateWrapper(model, { runtimeModule }) },
    ...(officialNames === undefined
      ? []
      : [
          {
            step: 'emit official names',
            emit: (model: SchemaModel) => emitOfficialAliases(model, officialNames),
          },
        ]),
  ];
}
