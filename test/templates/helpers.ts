/**
 * Shared helpers of the template-tree tests: the real processor (in process and as the CLI),
 * the templates root, and configurations built from the extracted catalog.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Catalog } from '@ies/processor-lib';
import { fillServices, prepareCatalog } from '../../desktop/src/lib/catalog.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const templatesDir = join(repoRoot, 'templates');
export const paramsFile = 'terraform/terraform.tfvars';
export const cliPath = join(repoRoot, 'processor-lib', 'bin', 'ies-processor.js');

export const SERVICE_KEYS = [
  'aurora', 'cloudfront', 'ecr', 'eks', 'elasticache', 'lambda', 'msk', 'opensearch',
  'rds', 'route53', 's3', 'sns', 'sqs', 'vpc', 'waf',
] as const;

/**
 * Internal modules: shared by several service modules (called from them with a relative
 * `source = "../<name>"`), never instantiated by the root module and never a catalog service.
 * Every folder of `terraform/modules/` is a catalog service or one of these (templates/README.md).
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

export type Config = {
  name: unknown;
  globalPrefix: unknown;
  provider: string;
  region: unknown;
  domain: unknown;
  services: Record<string, Record<string, unknown>>;
  terraformBackend: { bucket: string; key: string; region: string; useLockfile: boolean };
  gitRepository: { url: string; branch: string; branches: string[] };
  [k: string]: unknown;
};

/**
 * A processor input as the backend's transform sends it: global fields, every service with
 * `enabled` and its fields (from the catalog defaults unless overridden), the state backend
 * and the Git repository.
 */
export function configFrom(
  catalog: Catalog,
  opts: { enabled: boolean | ((key: string) => boolean); domain?: string; withFields?: boolean },
): Config {
  // The catalog's attributes are strings ("3", "true"); read them as the wizard does.
  const prepared = prepareCatalog(catalog);
  const g = Object.fromEntries(Object.entries(prepared.global).map(([k, f]) => [k, f.default]));
  const services: Config['services'] = {};
  for (const key of Object.keys(catalog.services)) {
    services[key] = { enabled: typeof opts.enabled === 'function' ? opts.enabled(key) : opts.enabled };
  }
  if (opts.withFields !== false) fillServices(services, prepared);
  return {
    name: g.name,
    globalPrefix: g.globalPrefix,
    provider: 'aws',
    region: g.region,
    domain: opts.domain ?? g.domain,
    services,
    terraformBackend: { bucket: 'ies-state-123456789012', key: 'env/00000000-0000-4000-8000-000000000000/aws.tfstate', region: 'eu-west-1', useLockfile: true },
    gitRepository: { url: 'https://git.example.com/acme/infra.git', branch: 'main', branches: ['main'] },
  };
}

/** The catalog's own defaults: every field's default, each service's enable toggle at its default. */
export function catalogDefaults(catalog: Catalog): Config {
  const cfg = configFrom(catalog, { enabled: false });
  for (const service of prepareCatalog(catalog).services) cfg.services[service.key]!.enabled = service.enabledDefault;
  return cfg;
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
