/**
 * The worked example of docs/template-authors.md, "Add a service": in a temporary copy of the
 * tree, add a small service end to end (module, @module, @param, @section) and show that it
 * appears in the catalog and in the generated output, and that the gate holds.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { extractCatalog, processTree, runGate, type TreeFile } from '@ies/processor-lib';
import { configFrom, runCli, templatesDir } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'ies-plugin-example-'));
const tree = join(work, 'templates');
t.teardown(() => rmSync(work, { recursive: true, force: true }));

// 1. The module: a customer managed KMS key for the environment's applications.
const moduleDir = join(tree, 'terraform', 'modules', 'kms');

function addService(): void {
  cpSync(templatesDir, tree, { recursive: true });
  mkdirSync(moduleDir, { recursive: true });
  writeFileSync(join(moduleDir, 'versions.tf'), readFileSync(join(templatesDir, 'terraform/modules/sns/versions.tf'), 'utf8'));
  writeFileSync(join(moduleDir, 'variables.tf'), `variable "name_prefix" {
  description = "Prefix of every resource name."
  type        = string
}

variable "deletion_window_days" {
  description = "Waiting period before a deleted key is destroyed."
  type        = number
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}
`);
  writeFileSync(join(moduleDir, 'main.tf'), `resource "aws_kms_key" "this" {
  description             = "Application key of \${var.name_prefix}"
  deletion_window_in_days = var.deletion_window_days
  enable_key_rotation     = true

  tags = var.tags
}

resource "aws_kms_alias" "this" {
  name          = "alias/\${var.name_prefix}-app"
  target_key_id = aws_kms_key.this.key_id
}
`);
  writeFileSync(join(moduleDir, 'outputs.tf'), `output "key_arn" {
  description = "ARN of the key."
  value       = aws_kms_key.this.arn
}
`);
  // 2. The knob: @module declares the service, @param sits directly above a real value line,
  //    and the service's tfvars block is gated like its module.
  appendFileSync(join(tree, 'terraform', 'terraform.tfvars'), `
# --- KMS: application encryption key -----------------------------------------

# @module services.kms | displayName=KMS | category=Security
# @section services.kms.enabled begin

# @param services.kms.deletionWindowDays | displayName=Deletion window (days) | description=Days before a deleted key is destroyed. | type=number | pattern=^[0-9]+$ | default=30
kms_deletion_window_days = 30

# @section services.kms.enabled end
`);
  // 3. The root variable, with the same working default (used while the service is disabled).
  appendFileSync(join(tree, 'terraform', 'variables.tf'), `
variable "kms_deletion_window_days" {
  description = "KMS: Days before a deleted key is destroyed."
  type        = number
  default     = 30
}
`);
  // 4. The instantiation, gated by its section (rule 14).
  appendFileSync(join(tree, 'terraform', 'main.tf'), `
# @section services.kms.enabled begin
module "kms" {
  source = "./modules/kms"

  name_prefix          = local.name_prefix
  deletion_window_days = var.kms_deletion_window_days
  tags                 = local.tags
}
# @section services.kms.enabled end
`);
}

const text = (files: TreeFile[], p: string) => {
  const f = files.find((x) => x.path === p);
  if (!f) throw new Error(`${p} missing`);
  return typeof f.content === 'string' ? f.content : f.content.toString('utf8');
};

t.test('a new service appears in the catalog and in generated output', async (t) => {
  addService();

  const catalog = await extractCatalog({ templatesDir: tree, provider: 'aws', commit: 'worked-example' });
  t.same(catalog.errors, [], 'no extraction errors');
  const kms = catalog.services.kms;
  t.ok(kms, 'services.kms is in the catalog');
  t.equal(kms?.displayName, 'KMS');
  t.equal(kms?.category, 'Security');
  t.match(kms?.fields.deletionWindowDays, { displayName: 'Deletion window (days)', type: 'number', pattern: '^[0-9]+$' });
  t.ok(kms?.fields.enabled, 'with its enable toggle');

  const strict = await runCli(['--extract-catalog', tree, '--provider', 'aws', '--strict']);
  t.equal(strict.code, 0, `the CLI --strict accepts it (stderr: ${strict.stderr})`);
  t.ok((JSON.parse(strict.stdout) as { services: Record<string, unknown> }).services.kms);

  // Enabled: the value is substituted and the module is live; the gate holds.
  const on = configFrom(catalog, { enabled: true, domain: 'apps.example.com' });
  on.services.kms!.deletionWindowDays = 14;
  const gateOn = await runGate({ templatesDir: tree, config: on });
  t.same(gateOn.findings, [], 'gate passes with the service enabled');
  t.match(text(gateOn.process.files, 'terraform/terraform.tfvars'), /^kms_deletion_window_days = 14$/m);
  t.match(text(gateOn.process.files, 'terraform/main.tf'), /^module "kms" \{$/m);

  // Disabled: the module and its knob are commented out, line numbers kept; the gate holds.
  const off = configFrom(catalog, { enabled: (k) => k !== 'kms', domain: '' });
  const gateOff = await runGate({ templatesDir: tree, config: off });
  t.same(gateOff.findings, [], 'gate passes with the service disabled');
  const main = text(gateOff.process.files, 'terraform/main.tf');
  t.notMatch(main, /^module "kms"/m);
  t.match(main, /^# module "kms" \{$/m);
  t.equal(main.split('\n').length, readFileSync(join(tree, 'terraform/main.tf'), 'utf8').split('\n').length);

  // A knob without its value line is an inert decorator: the gate says so.
  const tfvars = join(tree, 'terraform', 'terraform.tfvars');
  writeFileSync(tfvars, readFileSync(tfvars, 'utf8').replace('kms_deletion_window_days = 30\n', '\nkms_deletion_window_days = 30\n'));
  const broken = await processTree({ templatesDir: tree, config: on });
  t.ok(broken.findings.some((f) => f.code === 'INERT_PARAM' && f.path === 'services.kms.deletionWindowDays'), 'INERT_PARAM reported');
});
