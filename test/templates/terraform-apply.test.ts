/**
 * The generated stack applies: three generated trees (every service with a domain, a subset
 * without one, every service off) are planned against moto, the local AWS stand-in, with their
 * state in moto's S3 through the generated backend.tf; the two that create resources are applied
 * and destroyed again. A failure names the resource and the error. What moto cannot do is the one
 * list in scripts/check-templates/moto-gaps.ts: only those resources may be missing after the
 * apply, everything else planned must be in the state. The plans also show the domain's resources
 * (zone, certificates) planned with a domain and absent without, and the archive_file data source's
 * lambda placeholder zip built with its SHA1 as the id.
 *
 * The test follows a customer's first apply (the generated README, templates/terraform/README.md, "First apply") where it can: the state bucket
 * is made first (versioned), then the pipeline's role (the documented trust policy), then the
 * pipeline's own `terraform init` and `terraform plan` arguments, read from the generated
 * workflow, run on the fresh tree with the role's temporary credentials.
 *
 * Each tree gets its own moto (the trees name the same resources) and runs beside the others;
 * the apply is mostly waiting on moto, so two at a time use the two cores well. Deletion
 * protection is turned off in the applied trees so they can be destroyed, and the log buckets are
 * emptied before the destroy, once access logging is stopped (moto delivers S3 access logs into
 * them as AWS does, and they are not force-destroyed).
 * Under CI=true a missing terraform or provider mirror fails the test; elsewhere it is skipped.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { extractCatalog, type Catalog } from '@ies/processor-lib';
import { MOTO_GAPS } from '../../scripts/check-templates/moto-gaps.ts';
import {
  applyWithoutGaps,
  createStateBucket,
  describe as describeDiagnostic,
  destroy,
  emptyBuckets,
  initBackend,
  motoEnv,
  plan,
  writeGenerated,
  type Apply,
  type Plan,
} from '../../scripts/check-templates/moto-stack.ts';
import { terraformMissing } from '../../scripts/check-templates/terraform.ts';
import { startTestMoto, type TestMoto } from '../harness/moto.ts';
import { configFrom, repoRoot, templatesDir, type Config } from './helpers.ts';

const inCi = !!process.env.CI && process.env.CI !== 'false';

interface Tree {
  name: string;
  config: (c: Catalog) => Config;
  apply: boolean;
}

/** The services of the subset tree: no VPC (the default VPC's wiring), no domain. */
const SUBSET = ['rds', 's3', 'sqs', 'lambda', 'cloudfront', 'ecr', 'sns'];

const TREES: Tree[] = [
  { name: 'every service, domain set', config: (c) => destroyable(configFrom(c, { enabled: true, domain: 'apps.example.com' })), apply: true },
  { name: 'a subset (no vpc), no domain', config: (c) => destroyable(configFrom(c, { enabled: (k) => SUBSET.includes(k), domain: '' })), apply: true },
  { name: 'every service off', config: (c) => configFrom(c, { enabled: false, domain: '' }), apply: false },
];

/** Deletion protection off (every service with that field), so the test can destroy what it applied. */
function destroyable(config: Config): Config {
  for (const fields of Object.values(config.services)) if ('deletionProtection' in fields) fields.deletionProtection = false;
  return config;
}

/** The arguments of the generated pipeline's `terraform plan` step (plan job of .github/workflows/terraform.yml). */
function pipelinePlanArgs(treeDir: string): string[] {
  const workflow = parseYaml(readFileSync(join(treeDir, '..', '.github', 'workflows', 'terraform.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { run?: string }[] }>;
  };
  const runs = workflow.jobs.plan!.steps.map((s) => s.run?.trim()).filter((r): r is string => !!r);
  if (!runs.includes('terraform init')) throw new Error('the pipeline plan job no longer runs `terraform init`: update this test');
  const planLine = runs.find((r) => r.startsWith('terraform plan'));
  if (!planLine) throw new Error('the pipeline plan job has no `terraform plan` step: update this test');
  return planLine.split(/\s+/).slice(2);
}

const FIRST_APPLY = join(repoRoot, 'templates', 'terraform', 'README.md');

/**
 * First apply, step 2, in moto: the GitHub OIDC provider and the pipeline's role with the trust
 * policy of the generated README's "First apply" (its JSON block, placeholders filled), AdministratorAccess
 * attached; then what the pipeline's configure-aws-credentials step does, AssumeRoleWithWebIdentity.
 * moto checks neither the token nor the trust policy: this proves the documented commands and
 * policy are well formed, and the plan runs with the role's temporary credentials.
 */
async function pipelineRole(moto: TestMoto, config: Config): Promise<Record<string, string>> {
  const trust = /```json\n([\s\S]*?)```/.exec(readFileSync(FIRST_APPLY, 'utf8'))?.[1];
  if (!trust) throw new Error(`${FIRST_APPLY} has no trust policy (a json block) any more: update this test`);
  const repo = new URL(config.gitRepository.url).pathname.replace(/^\/|\.git$/g, '');
  const policy = JSON.stringify(JSON.parse(trust.replaceAll('<account id>', '123456789012').replaceAll('<owner>/<repo>', repo)));
  await moto.iam({ Action: 'CreateOpenIDConnectProvider', Url: 'https://token.actions.githubusercontent.com', 'ClientIDList.member.1': 'sts.amazonaws.com' });
  const role = await moto.iam({ Action: 'CreateRole', RoleName: `${String(config.name)}-terraform`, AssumeRolePolicyDocument: policy });
  const roleArn = /<Arn>([^<]+)<\/Arn>/.exec(role)![1]!;
  await moto.iam({ Action: 'AttachRolePolicy', RoleName: `${String(config.name)}-terraform`, PolicyArn: 'arn:aws:iam::aws:policy/AdministratorAccess' });
  const assumed = await moto.sts({ Action: 'AssumeRoleWithWebIdentity', RoleArn: roleArn, RoleSessionName: 'terraform-plan-1', WebIdentityToken: 'github-oidc-token' });
  const value = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(assumed)![1]!;
  return { AWS_ACCESS_KEY_ID: value('AccessKeyId'), AWS_SECRET_ACCESS_KEY: value('SecretAccessKey'), AWS_SESSION_TOKEN: value('SessionToken') };
}

/** The lambda placeholder zips the plan's archive_file built in .terraform, and the data source's id in the plan output. */
function placeholderZip(dir: string, planned: Plan): { zips: Buffer[]; id: string | undefined } {
  const zips = readdirSync(join(dir, '.terraform'))
    .filter((f) => /^lambda-.*\.zip$/.test(f))
    .map((f) => readFileSync(join(dir, '.terraform', f)));
  const read = planned.run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { type?: string; hook?: { resource?: { addr?: string }; id_value?: string } })
    .find((m) => m.type === 'apply_complete' && m.hook?.resource?.addr === 'module.lambda.data.archive_file.placeholder');
  return { zips, id: read?.hook?.id_value };
}

interface TreeRun {
  planned: Plan;
  zip: ReturnType<typeof placeholderZip>;
  domain: boolean;
  apply?: Apply;
  destroyed?: Awaited<ReturnType<typeof destroy>>;
  lockStatus: number;
  seconds: Record<string, number>;
}

const reason = terraformMissing();
if (reason) {
  if (inCi) t.fail(`${reason}: CI must apply the generated trees`);
  else t.plan(0, `${reason}; skipped outside CI`);
} else {
  // Apply and destroy take minutes against moto (the provider's own waits for consistency): more than
  // the default per-file timeout.
  t.setTimeout(15 * 60 * 1000);
  const work = mkdtempSync(join(tmpdir(), 'ies-terraform-apply-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const started = Date.now();
  t.teardown(() => console.log(`# terraform-apply: ${((Date.now() - started) / 1000).toFixed(1)} s in all`));

  async function run(tree: Tree, catalog: Catalog): Promise<TreeRun> {
    const moto = await startTestMoto(t, { managedPolicies: true });
    const config = tree.config(catalog);
    const dir = await writeGenerated(templatesDir, config, join(work, tree.name.replace(/\W+/g, '-')));
    const seconds: Record<string, number> = {};
    // First apply, step 1: the state bucket exists before the first init; step 2: the pipeline's role.
    await createStateBucket(moto.endpoint, config.terraformBackend);
    const env = { ...motoEnv(moto.endpoint), ...(await pipelineRole(moto, config)) };
    seconds.init = (await initBackend(dir, env)).ms / 1000;
    const planned = await plan(dir, env, pipelinePlanArgs(dir));
    seconds.plan = planned.run.ms / 1000;
    const lock = `${moto.endpoint}/${config.terraformBackend.bucket}/${config.terraformBackend.key}.tflock`;
    const out: TreeRun = { planned, seconds, lockStatus: (await fetch(lock)).status, zip: placeholderZip(dir, planned), domain: config.domain !== '' };
    if (!tree.apply || planned.run.code !== 0) return out;
    out.apply = await applyWithoutGaps(dir, env, planned);
    seconds.apply = out.apply.run.ms / 1000;
    out.destroyed = await destroy(dir, env, () => emptyBuckets(moto.endpoint, config.terraformBackend.bucket));
    seconds.destroy = out.destroyed.run.ms / 1000;
    return out;
  }

  const runs = new Map<string, Promise<TreeRun>>();
  t.before(async () => {
    const catalog = await extractCatalog({ templatesDir, provider: 'aws' });
    for (const tree of TREES) {
      const promise = run(tree, catalog);
      promise.catch(() => {}); // reported by its subtest
      runs.set(tree.name, promise);
    }
  });

  for (const tree of TREES) {
    t.test(`${tree.name}: plan${tree.apply ? ', apply, destroy' : ''} against moto`, async (t) => {
      const { planned, apply, destroyed, lockStatus, seconds, zip, domain } = await runs.get(tree.name)!;
      t.comment(`seconds: ${JSON.stringify(seconds)}`);
      t.same(planned.diagnostics.map((d) => describeDiagnostic(d)), [], `plan: no error or warning${planned.run.stderr ? ` (stderr: ${planned.run.stderr})` : ''}`);
      t.equal(planned.run.code, 0, 'plan exits 0');
      const summary = planned.summary;
      t.ok(summary && summary.change === 0 && summary.remove === 0, `plan only creates: ${JSON.stringify(summary)}`);
      t.equal(lockStatus, 404, 'the S3 lock file was released');
      if (!tree.apply) return t.equal(summary?.add, 0, 'nothing to create');
      t.ok(summary && summary.add > 0, 'resources to create');
      const types = new Set(planned.changes.map((c) => c.type));
      for (const type of ['aws_route53_zone', 'aws_acm_certificate']) t.equal(types.has(type), domain, `${type} ${domain ? 'planned with a domain' : 'absent without a domain'}`);
      t.equal(zip.zips.length, 1, 'the lambda placeholder zip was built');
      t.equal(zip.id, zip.zips[0] && createHash('sha1').update(zip.zips[0]).digest('hex'), 'the data source id is the zip SHA1');
      t.ok(zip.zips[0]?.includes(Buffer.from('index.mjs')), 'the zip holds the placeholder handler');
      if (!apply || !destroyed) return t.fail('not applied');
      t.same(apply.failures, [], 'apply: no error (each names its resource)');
      const undocumented = apply.missing.filter((m) => !m.gap).map((m) => `${m.address}: ${m.why}`);
      t.same(undocumented, [], 'every planned resource is in the state, except the documented moto gaps');
      const gaps = apply.missing.filter((m) => m.gap).map((m) => m.address);
      t.comment(`created ${apply.created} of ${planned.changes.length}; moto gaps left out: ${gaps.join(', ') || 'none'}`);
      t.same(destroyed.failures, [], 'destroy: no error');
      t.same(destroyed.left, [], 'destroy leaves an empty state');
    });
  }

  t.test('the moto gap list: one entry per resource, each with its reason', async (t) => {
    const addresses = MOTO_GAPS.map((g) => g.address);
    t.equal(new Set(addresses).size, addresses.length, 'no resource listed twice');
    for (const gap of MOTO_GAPS) t.ok(gap.why.length > 20, `${gap.address}: says why`);
  });
}
