/**
 * The independent scanners a customer runs on the generated repository, over generated trees:
 * checkov (policy checks of the Terraform, pinned by scripts/provision.sh), tflint with its
 * recommended preset (the tree's own terraform/.tflint.hcl), actionlint (the pipeline) and yamllint.
 * Used by security-scan.test.ts and, as a script, prints the figures docs/internals/templates.md quotes:
 *
 *   npx tsx test/templates/security-scan.ts [--templates <dir>]
 *
 * `--templates` scans another template tree (for example an older checkout) for comparison.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractCatalog, processTree, writeTree, type Catalog } from '@ies/processor-lib';
import { backendFile, BACKEND_FILE } from '../../server/src/jobs/generation/backend-file.ts';
import type { ProcessorInput } from '../../server/src/jobs/generation/transform.ts';
import {
  checkov,
  deployed,
  missingScanner,
  passRate,
  runTool,
  SCANNERS,
  tflint as lintTree,
  type CheckovResult,
  type LintIssue,
} from '../../scripts/check-templates/scanners.ts';
import { configFrom, repoRoot, templatesDir as defaultTemplatesDir, type Config } from './helpers.ts';

export { checkov, deployed, passRate, type CheckovCheck, type CheckovResult } from '../../scripts/check-templates/scanners.ts';

export const tools = { ...SCANNERS, actionlint: join(repoRoot, '.tools', 'bin', 'actionlint'), yamllint: join(repoRoot, '.tools', 'checkov', 'bin', 'yamllint') };

/** Why the scanners cannot run here, or null when they can (provision.sh installs them). */
export const missingTools = () => missingScanner(tools);

/**
 * The trees whose figures docs/internals/templates.md gives (every service with a domain, a typical subset without
 * one, nothing), then the rest of the gate's matrix that differs in its .tf files (every service
 * without a domain; half the services, the network, WAF and zone among those off).
 */
export const SCAN_TREES: { name: string; config: (catalog: Catalog) => Config }[] = [
  { name: 'every service, domain set', config: (c) => configFrom(c, { enabled: true, domain: 'apps.example.com' }) },
  {
    name: 'vpc, eks, rds, s3, route53; no domain',
    config: (c) => configFrom(c, { enabled: (k) => ['vpc', 'eks', 'rds', 's3', 'route53'].includes(k), domain: '' }),
  },
  { name: 'every service off', config: (c) => configFrom(c, { enabled: false, domain: '' }) },
  { name: 'every service, no domain', config: (c) => configFrom(c, { enabled: true, domain: '' }) },
  {
    name: 'half (vpc, waf, route53, msk, lambda, s3, sqs off), domain set',
    config: (c) => configFrom(c, { enabled: (k) => !['vpc', 'waf', 'route53', 'msk', 'lambda', 's3', 'sqs'].includes(k), domain: 'apps.example.com' }),
  },
];

/** Writes a generated tree as a generation job does (processed files and backend.tf). */
export async function generateTree(dir: string, config: Config, templatesDir = defaultTemplatesDir): Promise<void> {
  const result = await processTree({ templatesDir, config });
  if (!result.ok) throw new Error(`processing refused ${result.refused.join(', ')}`);
  await writeTree(dir, [...result.files, { path: BACKEND_FILE, content: backendFile(config as unknown as ProcessorInput), mode: 0o644 }]);
}

/** tflint over a tree's terraform/ folder with its own configuration (a tree from older templates: the repository's). */
export async function tflint(terraformDir: string): Promise<LintIssue[]> {
  const config = join(terraformDir, '.tflint.hcl');
  if (!existsSync(config)) writeFileSync(config, readFileSync(join(defaultTemplatesDir, 'terraform', '.tflint.hcl')));
  return lintTree(terraformDir, config);
}

/** actionlint over the tree's workflows (shellcheck is used when installed). */
export async function actionlint(treeDir: string): Promise<string[]> {
  const dir = join(treeDir, '.github', 'workflows');
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
  const r = await runTool(tools.actionlint, ['-no-color', '-oneline', ...files], treeDir);
  if (r.code > 1) throw new Error(`actionlint failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

/** yamllint errors (its relaxed preset: layout issues are warnings) in the tree's YAML: pipeline, chart values, GitOps. */
export async function yamllint(treeDir: string): Promise<string[]> {
  const r = await runTool(tools.yamllint, ['-d', 'relaxed', '-f', 'parsable', '.github', 'charts', 'gitops'], treeDir);
  if (r.code > 1) throw new Error(`yamllint failed: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.includes('[error]'));
}

export interface TreeFigures {
  tree: string;
  dir: string;
  /** Every check checkov ran, disabled services' module folders included. */
  checkov: CheckovResult;
  /** The checks of the resources the tree deploys. */
  deployed: CheckovResult;
  tflint: LintIssue[];
  actionlint: string[];
  yamllint: string[];
}

/** Generates the scan trees into `work` and runs the three scanners on each. */
export async function scanTrees(work: string, templatesDir = defaultTemplatesDir): Promise<TreeFigures[]> {
  const catalog = await extractCatalog({ templatesDir, provider: 'aws' });
  const figures: TreeFigures[] = [];
  for (const [i, tree] of SCAN_TREES.entries()) {
    const dir = join(work, `tree-${i}`);
    await generateTree(dir, tree.config(catalog), templatesDir);
    const [c, t, a, y] = await Promise.all([checkov(join(dir, 'terraform')), tflint(join(dir, 'terraform')), actionlint(dir), yamllint(dir)]);
    const main = readFileSync(join(dir, 'terraform', 'main.tf'), 'utf8');
    figures.push({ tree: tree.name, dir, checkov: c, deployed: deployed(c, main), tflint: t, actionlint: a, yamllint: y });
  }
  return figures;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--templates');
  const templates = i > 0 ? resolve(process.argv[i + 1]!) : defaultTemplatesDir;
  const reason = missingTools();
  if (reason) {
    console.error(reason);
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'ies-security-scan-'));
  try {
    console.log(`templates: ${templates}`);
    const figures = (c: CheckovResult) => `${c.passed.length}/${c.failed.length}/${c.skipped.length} | ${(passRate(c) * 100).toFixed(1)}%`;
    console.log('tree | deployed resources: checkov passed/failed/skipped | pass rate | all module folders: passed/failed/skipped | pass rate | tflint issues | actionlint errors | yamllint errors');
    for (const f of await scanTrees(work, templates)) {
      const c = f.checkov;
      console.log(`${f.tree} | ${figures(f.deployed)} | ${figures(c)} | ${f.tflint.length} | ${f.actionlint.length} | ${f.yamllint.length}`);
      for (const x of c.failed) console.log(`  failed  ${x.id} ${x.resource} (${x.file}:${x.line})`);
      for (const x of f.tflint) console.log(`  tflint  ${x.file}:${x.line} ${x.rule}: ${x.message}`);
      for (const x of f.actionlint) console.log(`  actionlint ${x}`);
      for (const x of f.yamllint) console.log(`  yamllint ${x}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
