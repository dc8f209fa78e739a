/**
 * A plugin author adds a service with templates alone: in a temporary copy of the tree,
 * `npm run new-service -- dynamodb` scaffolds it; `npm run check:templates` on the copy (strict
 * extraction, the gate matrix, real terraform fmt -check and validate) finds nothing but the
 * static catalog, and prints the command that regenerates it, which then makes it pass; the
 * catalog lists the service, generation includes it, and the template tests pass on the copy
 * unchanged (their service lists come from the catalog). Then a broken copy: each mistake is
 * reported once at its file:line, whatever number of configurations shows it.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { extractCatalog, processTree, type TreeFile } from '@ies/processor-lib';
import { configFrom, repoRoot, templatesDir } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'ies-new-service-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const inCi = !!process.env.CI && process.env.CI !== 'false';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}
const tsx = (script: string, args: string[], env?: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', script, ...args], env);
/** The findings of a check:templates report: its `file:line: CODE` lines. */
const reported = (out: string) => [...out.matchAll(/^(\S+:\d+): ([A-Z_]+) /gm)].map((m) => `${m[1]} ${m[2]}`);

function copyTree(name: string): { tree: string; staticFile: string } {
  const tree = join(work, name, 'templates');
  cpSync(templatesDir, tree, { recursive: true });
  const staticFile = join(work, name, 'static-catalog.json');
  cpSync(join(repoRoot, 'desktop/src/catalog/static-catalog.json'), staticFile);
  return { tree, staticFile };
}

const text = (files: readonly TreeFile[], p: string) => {
  const f = files.find((x) => x.path === p);
  if (!f) throw new Error(`${p} missing`);
  return typeof f.content === 'string' ? f.content : f.content.toString('utf8');
};

t.test('a scaffolded service passes check:templates, is in the catalog and in generated output', async (t) => {
  const { tree, staticFile } = copyTree('good');
  const scaffold = await tsx('scripts/new-service.ts', [
    'dynamodb',
    '--templates',
    tree,
    '--display-name',
    'DynamoDB',
    '--category',
    'Databases',
    '--description',
    'Key-value and document tables',
  ]);
  t.equal(scaffold.code, 0, scaffold.stderr);
  t.match(scaffold.stdout, /wrote terraform\/modules\/dynamodb\/main\.tf/);
  t.equal((await tsx('scripts/new-service.ts', ['dynamodb', '--templates', tree])).code, 2, 'a second scaffold of the same key is refused');

  // check:templates: everything passes but the static catalog, which names the new service and the command.
  const first = await tsx('scripts/check-templates.ts', [tree, '--static-catalog', staticFile]);
  t.equal(first.code, 1, 'the static catalog differs');
  t.same(reported(first.stdout), [`${staticFile}:0 STATIC_CATALOG`], `only the static catalog is reported:\n${first.stdout}`);
  t.match(first.stdout, /services\.dynamodb: live "present" \/ static "absent"/);
  if (inCi) t.notMatch(first.stdout, /terraform skipped/, 'terraform ran');
  t.match(first.stdout, /check:templates: 1 finding\(s\) in 1 file\(s\); \d+ configurations, \d+ Terraform trees validated; [\d.]+ s/);
  const command = /regenerate it: (npm run check:templates -- .*--write-static --static-catalog \S+)/.exec(first.stdout)?.[1];
  t.ok(command, 'the exact command is printed');
  // The printed command, without Terraform this time (the first run validated this very tree; the
  // test file stays well inside tap's timeout on a loaded machine).
  const args = command!.replace('npm run check:templates -- ', '').split(' ');
  const second = await tsx('scripts/check-templates.ts', [...args, '--no-terraform']);
  t.equal(second.code, 0, `the printed command regenerates the static catalog and the check passes:\n${second.stdout}`);
  t.match(second.stdout, /check:templates: ok; /);
  t.ok(JSON.parse(readFileSync(staticFile, 'utf8')).services.dynamodb, 'the static catalog now lists dynamodb');

  // The catalog lists it; generation includes it when enabled and comments it out when not.
  const catalog = await extractCatalog({ templatesDir: tree, provider: 'aws', commit: 'new-service' });
  t.same(catalog.errors, []);
  t.match(catalog.services.dynamodb, { displayName: 'DynamoDB', category: 'Databases', description: 'Key-value and document tables' });
  t.match(catalog.services.dynamodb?.fields.example, { type: 'text', default: 'example' });
  const on = configFrom(catalog, { enabled: (k) => k === 'dynamodb', domain: '' });
  on.services.dynamodb!.example = 'orders';
  const generated = await processTree({ templatesDir: tree, config: on });
  t.ok(generated.ok);
  t.match(text(generated.files, 'terraform/terraform.tfvars'), /^dynamodb_example = "orders"$/m);
  t.match(text(generated.files, 'terraform/main.tf'), /^module "dynamodb" \{$/m);
  t.ok(generated.files.some((f) => f.path === 'terraform/modules/dynamodb/main.tf'));
  const off = await processTree({ templatesDir: tree, config: configFrom(catalog, { enabled: false, domain: '' }) });
  t.match(text(off.files, 'terraform/main.tf'), /^# module "dynamodb" \{$/m);

  // The template tests, run on the copy as they are: they take the services from its catalog.
  for (const test of ['test/templates/structure.test.ts', 'test/templates/module-wiring.test.ts']) {
    const r = await tsx(test, [], { IES_TEMPLATES_DIR: tree });
    t.equal(r.code, 0, `${test} passes on the copy${r.code ? `:\n${r.stdout.split('\n').filter((l) => /not ok/.test(l)).join('\n')}` : ''}`);
  }
});

t.test('check:templates on a broken copy: each mistake once, at its line, grouped by file', async (t) => {
  const { tree, staticFile } = copyTree('broken');
  t.equal((await tsx('scripts/new-service.ts', ['dynamodb', '--templates', tree])).code, 0);
  const tfvars = join(tree, 'terraform/terraform.tfvars');
  const main = join(tree, 'terraform/main.tf');
  let params = readFileSync(tfvars, 'utf8');
  // 1. a blank line under the knob's @param (the service is off in most configurations of the matrix)
  params = params.replace('dynamodb_example = "example"\n', '\ndynamodb_example = "example"\n');
  // 2. a "|" inside pattern= on another service's knob
  params = params.replace(/^(# @param services\.sqs\.queueName .*)pattern=[^|]*\|/m, '$1pattern=^(jobs|tasks)$ |');
  writeFileSync(tfvars, params);
  // 3. the module call misses a required argument (terraform validate)
  writeFileSync(main, readFileSync(main, 'utf8').replace('  example     = var.dynamodb_example\n', ''));
  const lineIn = (file: string, needle: string) => readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
  const inertLine = lineIn(tfvars, '# @param services.dynamodb.example');
  const patternLine = lineIn(tfvars, '# @param services.sqs.queueName');
  const moduleLine = lineIn(main, 'module "dynamodb" {');

  const r = await tsx('scripts/check-templates.ts', [tree, '--static-catalog', staticFile, '--write-static']);
  t.equal(r.code, 1);
  const want = [`terraform/terraform.tfvars:${patternLine} BAD_ATTRIBUTE`, `terraform/terraform.tfvars:${inertLine} INERT_PARAM`];
  const terraformRan = !/terraform skipped/.test(r.stdout);
  if (terraformRan) want.unshift(`terraform/main.tf:${moduleLine} TERRAFORM_VALIDATE`);
  else t.notOk(inCi, 'terraform runs under CI');
  t.same(reported(r.stdout), want, `each once:\n${r.stdout}`);
  t.match(r.stdout, /BAD_ATTRIBUTE .*"\|" before it splits the decorator \(rule 9\)/);
  t.match(r.stdout, /\n {4}fix: put the @param directly above its `key = value` line/);
  if (terraformRan) t.match(r.stdout, /TERRAFORM_VALIDATE error: Missing required argument/);
  // grouped by file: a heading line per file, then its findings
  t.match(r.stdout, /\nterraform\/terraform\.tfvars\nterraform\/terraform\.tfvars:\d+: BAD_ATTRIBUTE [^\n]*\n {4}fix: [^\n]*\nterraform\/terraform\.tfvars:\d+: INERT_PARAM /);
  if (terraformRan) t.match(r.stdout, /\nterraform\/main\.tf\nterraform\/main\.tf:\d+: TERRAFORM_VALIDATE /);
  t.notMatch(r.stdout, /UNRESOLVED_PARAM/, 'the knob left out of the catalog is not reported again as unresolved');
});
