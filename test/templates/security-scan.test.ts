/**
 * The scanners a customer runs, over generated trees (security-scan.ts): checkov must report no
 * failed check, on the deployed resources and on every module folder, with each skipped check
 * carrying its reason inline (`#checkov:skip=<id>:<reason>`) and listed in templates/README.md;
 * tflint's recommended preset and actionlint must report nothing. A copy with known mistakes
 * shows that the scanners do see them. Under CI=true missing scanners fail the test; elsewhere
 * it is skipped with the reason (provision.sh installs them).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { extractCatalog } from '@ies/processor-lib';
import { configFrom, templatesDir } from './helpers.ts';
import { checkov, generateTree, missingTools, passRate, scanTrees, SCAN_TREES, tflint, type CheckovCheck, type TreeFigures } from './security-scan.ts';

const inCi = !!process.env.CI && process.env.CI !== 'false';
const describe = (c: CheckovCheck) => `${c.id} ${c.resource} (${c.file}:${c.line})`;

/** `#checkov:skip=<id>:<reason>` lines of the template tree, with their files. */
function skipsInTemplates(): { id: string; reason: string; file: string }[] {
  const out: { id: string; reason: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.tf'))
        for (const m of readFileSync(p, 'utf8').matchAll(/#\s*checkov:skip=([A-Z0-9_]+)(?::(.*))?$/gm))
          out.push({ id: m[1]!, reason: (m[2] ?? '').trim(), file: relative(templatesDir, p) });
    }
  };
  walk(join(templatesDir, 'terraform'));
  return out;
}

t.test('every checkov skip in the templates has a reason and is listed in templates/README.md', async (t) => {
  const skips = skipsInTemplates();
  t.ok(skips.length > 0, `${skips.length} skips`);
  const readme = readFileSync(join(templatesDir, 'README.md'), 'utf8');
  for (const s of skips) {
    t.ok(s.reason.length >= 30, `${s.file} ${s.id}: a reason a reviewer can read ("${s.reason}")`);
    t.match(readme, new RegExp(`\\b${s.id}\\b`), `${s.id} (${s.file}) is listed in templates/README.md`);
  }
});

t.test('the pipeline: actions pinned by commit SHA with the release in a comment, least privilege, scan before apply', async (t) => {
  const text = readFileSync(join(templatesDir, '.github', 'workflows', 'terraform.yml'), 'utf8');
  const uses = [...text.matchAll(/^\s*-?\s*uses:\s*(.+)$/gm)].map((m) => m[1]!.trim());
  t.ok(uses.length >= 7, `${uses.length} action steps`);
  for (const u of uses) t.match(u, /^[\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+(\.\d+)*$/, `${u}: pinned by SHA, version in a comment`);
  const wf = YAML.parse(text) as { permissions: Record<string, string>; jobs: Record<string, { permissions?: Record<string, string>; needs?: string | string[]; steps: { run?: string }[] }> };
  t.same(wf.permissions, { contents: 'read' }, 'workflow default: read the repository only');
  for (const [name, job] of Object.entries(wf.jobs)) {
    for (const [scope, level] of Object.entries(job.permissions ?? {})) {
      t.ok(scope === 'contents' ? level === 'read' : scope === 'id-token' && level === 'write', `${name}: ${scope}: ${level} is used`);
    }
  }
  t.ok(wf.jobs.scan?.steps.some((s) => /checkov /.test(s.run ?? '')) && wf.jobs.scan?.steps.some((s) => /tflint --recursive/.test(s.run ?? '')), 'a scan job runs checkov and tflint');
  t.ok([wf.jobs.apply!.needs].flat().includes('scan'), 'apply waits for the scan');
});

const reason = missingTools();
if (reason) {
  if (inCi) t.fail(`${reason}: CI must scan the generated trees`);
  else t.comment(`${reason}; scans skipped outside CI`);
} else {
  const work = mkdtempSync(join(tmpdir(), 'ies-security-scan-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  let figures: TreeFigures[];
  t.before(async () => {
    figures = await scanTrees(work);
  });

  for (const [i, tree] of SCAN_TREES.entries()) {
    t.test(`scanners: ${tree.name}`, async (t) => {
      const f = figures[i]!;
      const d = f.deployed;
      t.comment(
        `checkov, deployed resources: ${d.passed.length} passed, ${d.failed.length} failed, ${d.skipped.length} skipped (${(passRate(d) * 100).toFixed(1)}%); ` +
          `every module folder: ${f.checkov.passed.length}/${f.checkov.failed.length}/${f.checkov.skipped.length}`,
      );
      t.same(d.failed.map(describe), [], 'checkov: no failed check on a deployed resource');
      t.same(f.checkov.failed.map(describe), [], 'checkov: no failed check in any module folder (what a customer running checkov -d terraform sees)');
      t.ok(passRate(d) >= 0.97, 'checkov pass rate of deployed resources >= 97%');
      for (const s of f.checkov.skipped) t.ok((s.reason ?? '').length >= 30, `${describe(s)} skipped with a reason: ${s.reason}`);
      t.same(f.tflint.map((x) => `${x.file}:${x.line} ${x.rule}: ${x.message}`), [], 'tflint recommended preset: no issue');
      t.same(f.actionlint, [], 'actionlint: no error in the pipeline');
      if (i === 0) t.ok(d.passed.length > 500, `the every-service tree deploys what checkov checks (${d.passed.length} passed checks)`);
    });
  }

  t.test('the scanners report mistakes injected into a copy of the every-service tree', async (t) => {
    const catalog = await extractCatalog({ templatesDir, provider: 'aws' });
    const dir = join(work, 'broken');
    await generateTree(dir, configFrom(catalog, { enabled: true, domain: 'apps.example.com' }));
    const tf = join(dir, 'terraform');
    const edit = (rel: string, from: RegExp, to: string) => {
      const file = join(tf, rel);
      const text = readFileSync(file, 'utf8');
      if (!from.test(text)) throw new Error(`${rel}: ${from} not found, the injection needs updating`);
      writeFileSync(file, text.replace(from, to));
    };
    // A public API endpoint open to the internet, a cache without AUTH, a log group without KMS.
    edit('modules/eks/main.tf', /endpoint_public_access = var\.endpoint_public_access\n.*\n/, 'endpoint_public_access = true\n    public_access_cidrs    = ["0.0.0.0/0"]\n');
    edit('modules/elasticache/main.tf', /^\s*auth_token\s+=.*\n/m, '');
    edit('modules/lambda/main.tf', /^\s*kms_key_id\s+=\s*aws_kms_key\.logs\.arn\n/m, '');
    // A declaration nothing reads.
    writeFileSync(join(tf, 'unused.tf'), 'variable "nothing_reads_this" {\n  description = "Injected."\n  type        = string\n  default     = ""\n}\n');
    const [c, lint] = await Promise.all([checkov(tf), tflint(tf)]);
    const failed = c.failed.map((x) => `${x.id} ${x.resource}`);
    for (const want of [
      'CKV_AWS_38 module.eks.aws_eks_cluster.this',
      'CKV_AWS_39 module.eks.aws_eks_cluster.this',
      'CKV_AWS_31 module.elasticache.aws_elasticache_replication_group.this',
      'CKV_AWS_158 module.lambda.aws_cloudwatch_log_group.this',
    ]) {
      t.ok(failed.includes(want), `checkov reports ${want}`);
    }
    const issues = lint.map((x) => `${x.file}:${x.line} ${x.rule}`);
    t.ok(issues.includes('unused.tf:1 terraform_unused_declarations'), `tflint reports the unused variable (${issues.join(', ')})`);
  });
}
