export { checkSchema, canonicalValidators, listCases } from './check-schema.js';
export { compareChecks, oneStepMutations } from './compare-checks.js';
export type { ChecksComparison, Decide } from './compare-checks.js';
export type { CaseFile, CheckSchemaOptions, CheckSchemaResult } from './check-schema.js';
export { diagnose } from './diagnose.js';
export type { Diagnostic } from './diagnose.js';
export { converterName } from './emit/compat-converter-names.js';
export { emitCompatConverters } from './emit/compat-converters.js';
export type { CompatEmitterOptions } from './emit/compat-converters.js';
export { emitCompatUpdates } from './emit/compat-updates.js';
export type { CompatUpdatesEmitterOptions } from './emit/compat-updates.js';
export { fieldShape, objectShape } from './emit/compat-fields.js';
export type { FieldShape, ObjectShape } from './emit/compat-fields.js';
export { buildCompatModel, readMapping } from './emit/compat-mapping.js';
export type {
  CompatDirection,
  CompatModel,
  ContextModel,
  ConversionKind,
  ConversionModel,
  DirectionSettings,
  MethodMappingModel,
  UpdateMappingModel,
  UpdateToV1Model,
  UpdateToV2Model,
} from './emit/compat-mapping-model.js';
export { generatedHeader } from './emit/emitted-file.js';
export type { EmittedFile } from './emit/emitted-file.js';
export { standardEmitters } from './emit/index.js';
export type { Emitter, StandardEmitterOptions } from './emit/index.js';
export { emitFastChecks } from './emit/fast-checks.js';
export { emitMethodCapabilities } from './emit/method-capabilities.js';
export { emitMethods } from './emit/methods.js';
export { emitOfficialAliases, officialAliases } from './emit/official-aliases.js';
export type { OfficialCounterpart, OfficialNames } from './emit/official-aliases.js';
export { emitEntryIndex } from './emit/entry-index.js';
export type { EntryIndexOptions } from './emit/entry-index.js';
export { emitKnownValues } from './emit/known-values.js';
export {
  emitUpdateKinds,
  type UpdateKindRow,
  type UpdateKindTable,
  updateKindTable,
} from './emit/update-kinds.js';
export { emitTypes } from './emit/types.js';
export { emitValidateWrapper } from './emit/validate-wrapper.js';
export type { ValidateWrapperOptions } from './emit/validate-wrapper.js';
export { VALIDATOR_SCHEMA_ID, validatorSchema } from './emit/validator-schema.js';
export { emitValidators } from './emit/validators.js';
export { describeDrift, emitAll, generate, generateCompat, loadCompat } from './generate.js';
export type { GenerateCompatOptions, GenerateOptions, GenerateResult, StepTiming } from './generate.js';
export type { JsonObject, JsonValue } from './json.js';
export { checkConventions } from './load/conventions.js';
export { inspectSchema, loadSchema } from './load/load-schema.js';
export type { LoadedSchema } from './load/load-schema.js';
export { metaValidate } from './load/meta-validate.js';
export { buildModel, methodConstName } from './model/build-model.js';
export type {
  DefinitionModel,
  DiscriminatedUnionModel,
  KnownVariant,
  MethodCapabilityModel,
  MethodDirection,
  MethodKind,
  MethodModel,
  MethodNotificationModel,
  NestedUnionVariant,
  OpenEnumModel,
  PropertyModel,
  SchemaModel,
  UnionVariant,
} from './model/model.js';
export { SchemaError, formatProblem } from './problems.js';
export type { SchemaProblem } from './problems.js';
export { applyWrite, isUpToDate, planWrite } from './write/writer.js';
export type { WritePlan } from './write/writer.js';
export { type Bump, bumpCovers, requiredBump } from './diff/bump.js';
export type { Change, DiffReport, Effect, Party, SchemaConventions, Verdict } from './diff/change.js';
export { parseChangeset, pendingBumps } from './diff/changesets.js';
export { diffSchemas } from './diff/diff-schemas.js';
export { formatJson, formatMarkdown, formatText } from './diff/format-report.js';
export {
  checkRelease,
  describeReleaseCheck,
  insertReleaseNotes,
  reExporters,
  releaseNotes,
  writeReleaseNotes,
} from './diff/release-check.js';
export type { PackageCheck, ReleaseCheck } from './diff/release-check.js';
export { SCHEMA_PACKAGES, readSchemaSource, releaseRef, releasedSchema } from './diff/schema-source.js';
export type { SchemaPackage, SchemaSource } from './diff/schema-source.js';
