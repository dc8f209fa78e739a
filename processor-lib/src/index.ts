/** @ies/processor-lib: the template processor's public API. See ../README.md. */
export { processTree, processFiles, readTree, listTree, writeTree } from './tree.ts';
export type { TreeFile, InputFile, ProcessResult, ProcessOptions } from './tree.ts';
export { processFile } from './substitute.ts';
export { extractCatalog, buildCatalog, DEFAULT_PARAMS_FILES, FIELD_TYPES } from './catalog.ts';
export type { Catalog, CatalogField, CatalogService, CatalogError, CatalogOption, ExtractOptions } from './catalog.ts';
export { runGate, validateFiles, checkOutputs } from './gate.ts';
export type { GateOptions, GateResult } from './gate.ts';
export { zipTree, unzipToFiles } from './zip.ts';
export type { UnzipLimits } from './zip.ts';
export { templatesCommit } from './commit.ts';
export { FINDING_CODES, formatFinding, ProcessorError } from './findings.ts';
export type { Finding, FindingCode, Severity } from './findings.ts';
export { languageOf } from './languages.ts';
export { buildProcessorService } from './service/app.ts';
export type { ProcessorServiceOptions } from './service/app.ts';
export { cloneRepository } from './git.ts';
