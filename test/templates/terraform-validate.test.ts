/**
 * Real Terraform over generated trees, beyond what check:templates does (its one run,
 * check-templates.test.ts, puts every distinct tree of the gate matrix through `terraform validate`,
 * no error and no warning; spec, decorator rule 12). Here: a copy of the every-service tree with
 * injected mistakes (written with the backend.tf a generation job adds) must make `terraform init
 * -backend=false` and `terraform validate -json` report exactly those. Then the every-service tree
 * without a domain is planned against moto (the local AWS stand-in) with fake credentials, its
 * state in moto's S3 through the generated backend.tf: the plan is also what reads terraform.tfvars
 * (validate reads no variable values), and no domain means no zone and no certificate. The same
 * tree with a domain is planned (and applied) by terraform-apply.test.ts.
 *
 * Each tree keeps its own .terraform in its temporary folder. No plugin cache is needed: init
 * links the mirror's unpacked providers into .terraform instead of copying them, so it takes
 * about a second. Two terraform processes run at a time.
 *
 * Providers come from the mirror `scripts/terraform/build-mirror.sh` builds under .tools/terraform
 * (provision.sh runs it): the real hashicorp/aws, and a local STAND-IN for hashicorp/archive (the
 * registry is unreachable from these machines; scripts/terraform/README.md). Under CI=true a
 * missing terraform or mirror fails the test; elsewhere it is skipped with the reason.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { extractCatalog, processTree, writeTree, type Catalog } from '@ies/processor-lib';
import { backendFile, BACKEND_FILE } from '../../server/src/jobs/generation/backend-file.ts';
import type { ProcessorInput } from '../../server/src/jobs/generation/transform.ts';
import { startTestMoto } from '../harness/moto.ts';
import { configFrom, repoRoot, templatesDir, type Config } from './helpers.ts';
import { terraform, tfEnv, type Diagnostic, type TerraformRun as Run } from '../../scripts/check-templates/terraform.ts';

const inCi = !!process.env.CI && process.env.CI !== 'false';
const toolsDir = join(repoRoot, '.tools', 'terraform');
const cliConfig = join(toolsDir, 'terraformrc');
const hashicorp = join(toolsDir, 'mirror', 'registry.terraform.io', 'hashicorp');
const archiveStandIn = join(hashicorp, 'archive', '2.7.99', 'linux_amd64', 'terraform-provider-archive_v2.7.99_x5');
const awsProvider = join(hashicorp, 'aws', '5.100.0', 'linux_amd64', 'terraform-provider-aws_v5.100.0_x5');

/** Why Terraform cannot run here, or null when it can. */
function missing(): string | null {
  const version = spawnSync('terraform', ['version', '-json'], { encoding: 'utf8', env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' } });
  if (version.status !== 0) return 'terraform is not installed (it is in the machine image)';
  for (const [file, what] of [[cliConfig, 'the CLI config'], [archiveStandIn, 'the archive stand-in'], [awsProvider, 'the aws provider link']] as const) {
    if (!existsSync(file)) return `${what} (${file}) is missing: run scripts/terraform/build-mirror.sh (provision.sh runs it when /opt/tf-plugins exists)`;
  }
  return null;
}

interface Validation {
  valid: boolean;
  error_count: number;
  warning_count: number;
  diagnostics: Diagnostic[];
}

const describe = (d: Diagnostic) =>
  `${d.severity} ${d.range ? `${d.range.filename}:${d.range.start.line} ` : ''}${d.summary}${d.detail ? `: ${d.detail}` : ''}`;

/** Two terraform processes at a time (the CI machine has two cores; the aws provider is heavy). */
function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

const reason = missing();
if (reason) {
  if (inCi) t.fail(`${reason}: CI must run terraform validate over the generated trees`);
  else t.plan(0, `${reason}; skipped outside CI`);
} else {
  const work = mkdtempSync(join(tmpdir(), 'ies-terraform-validate-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const limit = limiter(2);
  const fileStarted = Date.now();
  t.teardown(() => console.log(`# terraform-validate: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s in all`));

  /** Writes the generated tree as a generation job does (processed files + backend.tf); returns its terraform/ folder. */
  async function generate(name: string, config: Config): Promise<string> {
    const result = await processTree({ templatesDir, config });
    if (!result.ok) throw new Error(`${name}: processing refused ${result.refused.join(', ')}`);
    const dir = join(work, name);
    await writeTree(dir, [...result.files, { path: BACKEND_FILE, content: backendFile(config as unknown as ProcessorInput), mode: 0o644 }]);
    return join(dir, 'terraform');
  }

  /** init (local providers, no backend) then validate -json; each tree keeps its own .terraform. */
  function check(dir: string): Promise<{ init: Run; validate: Run; result: Validation | null }> {
    return limit(async () => {
      const init = await terraform(dir, ['init', '-backend=false', '-input=false', '-no-color']);
      if (init.code !== 0) return { init, validate: { code: -1, stdout: '', stderr: 'not run', ms: 0 }, result: null };
      const validate = await terraform(dir, ['validate', '-json', '-no-color']);
      let result: Validation | null = null;
      try {
        result = JSON.parse(validate.stdout) as Validation;
      } catch {
        result = null;
      }
      return { init, validate, result };
    });
  }

  let catalog: Catalog;
  // Planned below (check:templates validates it and the rest of its matrix).
  const trees: [string, () => Config][] = [['every service enabled, domain empty', () => configFrom(catalog, { enabled: true, domain: '' })]];
  const dirs = new Map<string, string>();
  let broken: ReturnType<typeof check>;
  let moto: ReturnType<typeof startTestMoto>;

  t.before(async () => {
    moto = startTestMoto(t); // for the plans at the end; it starts while the broken copy is checked
    moto.catch(() => {}); // (its failure is reported by the plan test)
    catalog = await extractCatalog({ templatesDir, provider: 'aws' });
    for (const [name, cfg] of trees) dirs.set(name, await generate(name.replace(/\W+/g, '-'), cfg()));
    broken = generate('broken', configFrom(catalog, { enabled: true, domain: 'apps.example.com' })).then((dir) => {
      injectErrors(dir);
      return check(dir);
    });
  });

  /**
   * Three mistakes in a copy of the every-service tree: an argument the aws provider does not
   * have, an added archive_file with two source arguments that exclude each other (the
   * stand-in's own check; a data source of its own, since Terraform skips what depends on an
   * invalid block), and a reference to an attribute archive_file does not export.
   */
  function injectErrors(dir: string): void {
    const edit = (rel: string, from: RegExp, to: string) => {
      const file = join(dir, rel);
      const text = readFileSync(file, 'utf8');
      if (!from.test(text)) throw new Error(`${rel}: ${from} not found, the injection needs updating`);
      writeFileSync(file, text.replace(from, to));
    };
    edit('modules/sqs/main.tf', /^(resource "aws_sqs_queue" "this" \{\n)/m, '$1  not_an_argument = true\n');
    edit('modules/lambda/main.tf', /^(data "archive_file" "placeholder" \{\n)/m, [
      'data "archive_file" "conflicting" {',
      '  type        = "zip"',
      '  source_dir  = "${path.module}/src"',
      '  source_file = "${path.module}/src/index.mjs"',
      '  output_path = "${path.root}/.terraform/conflicting.zip"',
      '}',
      '',
      '$1',
    ].join('\n'));
    edit('modules/lambda/main.tf', /data\.archive_file\.placeholder\.output_base64sha256/, 'data.archive_file.placeholder.output_base64sha257');
  }

  t.test('terraform validate reports mistakes injected into a copy', async (t) => {
    const { init, result } = await broken;
    t.equal(init.code, 0, 'init succeeds');
    if (!result) return t.fail('validate -json gave no JSON');
    t.equal(result.valid, false, 'not valid');
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    const found = (file: string, summary: string, detail: RegExp) =>
      errors.some((d) => d.range?.filename === file && d.summary === summary && detail.test(d.detail ?? ''));
    t.ok(found('modules/sqs/main.tf', 'Unsupported argument', /"not_an_argument" is not expected here/), 'the unknown aws argument');
    t.ok(found('modules/lambda/main.tf', 'Invalid Attribute Combination', /"source_dir" cannot be specified when "source_file" is specified/), 'the conflicting archive_file sources');
    t.ok(found('modules/lambda/main.tf', 'Unsupported attribute', /output_base64sha257/), 'the attribute archive_file does not have');
    t.equal(errors.length, 4, `only those (the conflict is reported from both sides): ${errors.map(describe).join('\n')}`);
  });

  // The .tf files are those of the tree with a domain, terraform.tfvars is not (a domain set gives
  // the zone, certificates and host names; empty gives none of them).
  let stateBucket: Promise<number> | undefined;
  for (const [name, cfg] of trees) t.test(`terraform plan: ${name}, against moto (state in its S3)`, async (t) => {
    const dir = dirs.get(name)!;
    const { endpoint } = await moto;
    const env = tfEnv({
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'AKIAIESPLANTEST00001',
      AWS_SECRET_ACCESS_KEY: 'fake-secret-for-moto',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(work, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(work, 'no-aws-credentials'),
    });
    // The generated backend.tf as it is: S3 state with native locking, in a bucket made in moto
    // (path-style addressing is the only setting added: moto's endpoint is an IP address).
    const backend = cfg().terraformBackend;
    stateBucket ??= fetch(`${endpoint}/${backend.bucket}`, {
      method: 'PUT',
      body: `<CreateBucketConfiguration><LocationConstraint>${backend.region}</LocationConstraint></CreateBucketConfiguration>`,
    }).then((res) => res.status);
    t.equal(await stateBucket, 200, 'state bucket created in moto');
    const backendInit = await limit(() => terraform(dir, ['init', '-input=false', '-reconfigure', '-no-color', '-backend-config=use_path_style=true'], env));
    t.equal(backendInit.code, 0, `terraform init with the S3 backend (${backendInit.ms} ms)${backendInit.code ? `\n${backendInit.stdout}\n${backendInit.stderr}` : ''}`);
    const plan = await limit(() => terraform(dir, ['plan', '-json', '-input=false', '-no-color'], env));
    t.comment(`init with backend ${backendInit.ms} ms, plan ${plan.ms} ms`);
    const messages = plan.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
    const diagnostics = messages.filter((m) => m.type === 'diagnostic').map((m) => m.diagnostic as Diagnostic);
    t.same(diagnostics.map(describe), [], `no error or warning${plan.stderr ? ` (stderr: ${plan.stderr})` : ''}`);
    t.equal(plan.code, 0, 'exit 0');
    const summary = messages.find((m) => m.type === 'change_summary')?.changes as { add: number; change: number; remove: number } | undefined;
    t.ok(summary && summary.add > 0 && summary.change === 0 && summary.remove === 0, `creates everything: ${JSON.stringify(summary)}`);
    const planned = new Set(messages.filter((m) => m.type === 'planned_change').map((m) => m.change?.resource?.resource_type as string));
    const domainSet = cfg().domain !== '';
    for (const type of ['aws_route53_zone', 'aws_acm_certificate']) {
      t.equal(planned.has(type), domainSet, `${type} ${domainSet ? 'planned with a domain' : 'absent without a domain'}`);
    }
    const lock = await fetch(`${endpoint}/${backend.bucket}/${backend.key}.tflock`);
    t.equal(lock.status, 404, 'the S3 lock file was released');
    // The archive_file data source ran in the plan: the lambda placeholder zip, with its checksum.
    const zips = readdirSync(join(dir, '.terraform')).filter((f) => /^lambda-.*\.zip$/.test(f));
    t.equal(zips.length, 1, 'the lambda placeholder zip was built');
    if (zips.length !== 1) return;
    const zip = readFileSync(join(dir, '.terraform', zips[0]!));
    const read = messages.find((m) => m.type === 'apply_complete' && m.hook?.resource?.addr === 'module.lambda.data.archive_file.placeholder');
    t.equal(read?.hook?.id_value, createHash('sha1').update(zip).digest('hex'), 'the data source id is the zip SHA1');
    t.ok(zip.includes(Buffer.from('index.mjs')), 'the zip holds the placeholder handler');
  });
}
