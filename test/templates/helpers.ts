/**
 * Shared helpers of the template-tree tests: the real processor (in process and as the CLI),
 * the templates root, and configurations built from the extracted catalog.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { extractCatalog } from '@ies/processor-lib';

export { catalogDefaults, configFrom, type Config } from '../../scripts/check-templates/configs.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The tree under test: templates/, or the folder in IES_TEMPLATES_DIR (a copy with a service added,
 * test/scripts/new-service.test.ts), so the template tests check an author's tree unchanged.
 */
export const templatesDir = process.env.IES_TEMPLATES_DIR ? resolve(process.env.IES_TEMPLATES_DIR) : join(repoRoot, 'templates');
export const paramsFile = 'terraform/terraform.tfvars';
export const cliPath = join(repoRoot, 'processor-lib', 'bin', 'ies-processor.js');

/** The catalog services of the tree, as its catalog lists them (no fixed list: a service added by templates alone counts). */
export const SERVICE_KEYS: readonly string[] = Object.keys(
  (await extractCatalog({ templatesDir, provider: 'aws', commit: 'test' })).services,
).sort();

/**
 * Internal modules: shared by several service modules (called from them with a relative
 * `source = "../<name>"`), never instantiated by the root module and never a catalog service.
 * Every folder of `terraform/modules/` is a catalog service or one of these (docs/template-authors.md, "Internal modules").
 */
export const INTERNAL_MODULES = ['access-log-bucket', 'data-store-access', 'kms-key-policy', 'rds-monitoring-role', 'tls-only-policy'] as const;

const execFileP = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the ies-processor CLI as CI does (node processor-lib/bin/ies-processor.js ...). */
export async function runCli(args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [cliPath, ...args], {
      cwd: repoRoot,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

export function readTemplate(rel: string): string {
  return readFileSync(join(templatesDir, rel), 'utf8');
}

/** `# @param <path>` decorators of a text, with 1-based line numbers. */
export function paramsIn(text: string): { path: string; line: number }[] {
  const out: { path: string; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    const m = /^\s*(?:-\s+)?#\s*@param\s+([\w.-]+)/.exec(l);
    if (m) out.push({ path: m[1]!, line: i + 1 });
  });
  return out;
}
