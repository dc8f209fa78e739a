/**
 * What IES hands over works as delivered, read from the generated tree as written: an environment on
 * branch `trunk` without a state backend (no terraform/backend.tf).
 *
 * - The pipeline (its job conditions evaluated with GitHub's expression language, its `branch` job
 *   run with bash) plans pull requests into `trunk` and applies pushes to `trunk` only, in the job
 *   environment named after the environment; with no branch set, the repository's default branch.
 * - Its apply stops at "Remote state" (run with bash) without backend.tf, saying how to add it in
 *   IES or by hand, before any Terraform step; with the generated backend.tf it goes on.
 * - The README's "First apply" covers both cases; its "Cluster tools" commands run here with
 *   stand-ins for aws, terraform, helm and kubectl that record their arguments: every file they
 *   name is in the tree, and the chart, version, release and namespace are those of gitops/.
 * - The gitops/ manifests are Kubernetes objects (the check of check:templates), and that check
 *   reports a doctored copy.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { extractCatalog, processTree } from '@ies/processor-lib';
import { backendFile, BACKEND_FILE } from '@ies/server/jobs/generation/backend-file';
import type { ProcessorInput } from '@ies/server/jobs/generation/transform';
import { manifestFindings, treeManifestFindings } from '../../scripts/check-templates/manifests.ts';
import { configFrom, templatesDir, type Config } from './helpers.ts';
import { environmentBranch, jobRuns, readWorkflow, scripts, triggered, type Event, type Workflow } from './pipeline.ts';

const run = promisify(execFile);
const catalog = await extractCatalog({ templatesDir, provider: 'aws' });
const work = mkdtempSync(join(tmpdir(), 'ies-hand-over-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** Writes the generated tree of `config` (without backend.tf) into a folder of its own. */
async function generated(name: string, config: Config): Promise<string> {
  const result = await processTree({ templatesDir, config });
  if (!result.ok) throw new Error(`processing refused ${result.refused.join(', ')}`);
  const root = join(work, name);
  for (const f of result.files) {
    mkdirSync(dirname(join(root, f.path)), { recursive: true });
    writeFileSync(join(root, f.path), f.content);
  }
  return root;
}

const trunkConfig = configFrom(catalog, { enabled: true, domain: 'apps.example.com' });
trunkConfig.name = 'shop-prod';
trunkConfig.gitRepository = { url: 'https://git.example.com/acme/shop.git', branch: 'trunk', branches: ['trunk'] };
const trunk = await generated('trunk', trunkConfig);
const workflow = readWorkflow(trunk);

const push = (branch: string, defaultBranch = 'main'): Event => ({ name: 'push', branch, defaultBranch });
const pullRequest = (base: string, defaultBranch = 'main'): Event => ({ name: 'pull_request', branch: 'feature', base, defaultBranch });

/** The jobs that run for an event, in the workflow's order. */
async function jobsFor(wf: Workflow, event: Event): Promise<string[]> {
  if (!triggered(wf, event)) return [];
  const branch = await environmentBranch(wf, event);
  return Object.keys(wf.jobs).filter((job) => jobRuns(wf, job, event, branch));
}

t.test('the pipeline deploys from the environment branch trunk', async (t) => {
  t.equal(await environmentBranch(workflow, push('trunk')), 'trunk', 'the branch set in IES, whatever the default branch');
  t.same(await jobsFor(workflow, push('trunk')), ['branch', 'check', 'scan', 'apply'], 'a push to trunk checks and applies');
  t.same(await jobsFor(workflow, pullRequest('trunk')), ['branch', 'check', 'scan', 'plan'], 'a pull request into trunk is planned');
  t.same(await jobsFor(workflow, push('main')), ['branch'], 'a push to the default branch main applies nothing');
  t.same(await jobsFor(workflow, push('feature')), ['branch'], 'nor does a push to another branch');
  t.same(await jobsFor(workflow, pullRequest('main')), ['branch', 'check', 'scan'], 'a pull request into another branch is checked, not planned');
  t.same(await jobsFor(workflow, { name: 'workflow_dispatch', branch: 'trunk', defaultBranch: 'main' }), ['branch', 'check', 'scan', 'apply']);
  t.equal(workflow.jobs.apply!.environment, 'shop-prod', 'the job environment that gates the apply is named after the environment');
  t.same(workflow.jobs.plan!.environment, undefined, 'the plan waits for no reviewer');
});

t.test('with no branch set, the repository default branch deploys', async (t) => {
  const config = configFrom(catalog, { enabled: true, domain: '' });
  delete (config as Partial<Config>).gitRepository;
  const wf = readWorkflow(await generated('no-branch', config));
  t.same(await jobsFor(wf, push('master', 'master')), ['branch', 'check', 'scan', 'apply'], 'a push to the default branch master applies');
  t.same(await jobsFor(wf, pullRequest('master', 'master')), ['branch', 'check', 'scan', 'plan']);
  t.same(await jobsFor(wf, push('main', 'master')), ['branch'], 'main is just another branch there');
  t.same(await jobsFor(wf, push('trunk', 'trunk')), ['branch', 'check', 'scan', 'apply'], 'the default branch as GitHub reports it on the run');
});

/** Runs one step's script with bash in the tree's terraform/ folder (the workflow's working directory). */
async function runStep(root: string, script: string): Promise<{ code: number; out: string }> {
  const done = await run('bash', ['-e', '-c', script], { cwd: join(root, 'terraform') }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
  );
  return done;
}

t.test('the apply refuses to run without a remote state, before any Terraform step', async (t) => {
  const steps = scripts(workflow, 'apply');
  const guard = steps.findIndex((s) => s.name === 'Remote state');
  t.ok(guard >= 0, 'the apply job has a "Remote state" step');
  const firstTerraform = steps.findIndex((s) => s.run.startsWith('terraform '));
  const apply = steps.findIndex((s) => s.run.startsWith('terraform apply'));
  t.ok(guard < firstTerraform && firstTerraform < apply, 'it comes before terraform init, plan and apply');
  t.notOk(
    workflow.jobs.apply!.steps.slice(0, workflow.jobs.apply!.steps.findIndex((s) => s.name === 'Remote state')).some((s) => s.uses?.includes('configure-aws-credentials')),
    'and before the job takes its AWS role',
  );

  t.notOk(existsSync(join(trunk, BACKEND_FILE)), 'the tree has no backend.tf');
  const refused = await runStep(trunk, steps[guard]!.run);
  t.equal(refused.code, 1, 'the step fails');
  t.match(refused.out, /::error file=terraform\/backend\.tf::No remote state/, 'as a GitHub error annotation on backend.tf');
  t.match(refused.out, /in IES/, 'saying how to add it in IES');
  t.match(refused.out, /by hand/, 'or by hand');

  const noBucket = { ...(trunkConfig as unknown as ProcessorInput), terraformBackend: { key: 'env/x/aws.tfstate', region: 'eu-west-1', useLockfile: true as const } };
  writeFileSync(join(trunk, BACKEND_FILE), backendFile(noBucket));
  t.equal((await runStep(trunk, steps[guard]!.run)).code, 1, 'a backend.tf without a bucket is no remote state either');
  writeFileSync(join(trunk, BACKEND_FILE), backendFile(trunkConfig as unknown as ProcessorInput));
  t.equal((await runStep(trunk, steps[guard]!.run)).code, 0, 'the generated backend.tf passes');
  rmSync(join(trunk, BACKEND_FILE));

  t.notOk(scripts(workflow, 'plan').some((s) => s.name === 'Remote state'), 'the plan on pull requests runs either way');
});

const readme = readFileSync(join(trunk, 'terraform', 'README.md'), 'utf8');

/** The text of a `## <title>` section of the README. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`the README has no section "${title}" any more: update this test`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const blocks = (text: string, lang: string) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

t.test("the README's first apply covers a tree with and without backend.tf", async (t) => {
  const firstApply = section('First apply');
  t.match(firstApply, /`terraform\/backend\.tf` is here/);
  t.match(firstApply, /It is not/);
  t.match(firstApply, /in IES/);
  const [hcl] = blocks(firstApply, 'hcl');
  t.ok(hcl, 'a backend.tf to write by hand');
  const settings = (text: string) => [...text.matchAll(/^\s+(\w+)\s+=/gm)].map((m) => m[1]);
  t.same(settings(hcl!), settings(backendFile(trunkConfig as unknown as ProcessorInput)), 'with the settings IES writes');
  t.match(hcl!, /key\s+= "env\/<environment id>\/aws\.tfstate"/, "and the environment's own state key");
  t.match(section('The pipeline'), /github\.event\.repository\.default_branch/, 'the README says which branch deploys when none is set');
  t.match(firstApply, /named like the IES environment/, 'and which job environment to create');
});

t.test("the README's cluster tools commands run against the generated tree", async (t) => {
  const [commands] = blocks(section('Cluster tools'), 'sh');
  t.ok(commands, 'the cluster tools section has its commands');
  await run('bash', ['-n', '-c', commands!]);

  // Stand-ins on PATH: each records its arguments; terraform answers `output -raw <name>` for outputs the tree declares.
  const bin = join(work, 'bin');
  const log = join(work, 'commands.log');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['aws', 'helm', 'kubectl']) {
    writeFileSync(join(bin, tool), `#!/bin/sh\nprintf '%s\\n' "${tool} $*" >> "${log}"\n`);
    chmodSync(join(bin, tool), 0o755);
  }
  writeFileSync(
    join(bin, 'terraform'),
    `#!/bin/sh\nprintf '%s\\n' "terraform $*" >> "${log}"\nprintf 'output-%s' "$4"\n`,
  );
  chmodSync(join(bin, 'terraform'), 0o755);
  await run('bash', ['-e', '-c', commands!], { cwd: trunk, env: { PATH: `${bin}:${process.env.PATH}`, HOME: work } });
  const ran = readFileSync(log, 'utf8').trim().split('\n');

  const outputs = readFileSync(join(trunk, 'terraform', 'outputs.tf'), 'utf8');
  for (const line of ran.filter((l) => l.startsWith('terraform '))) {
    t.match(line, /^terraform -chdir=terraform output -raw (\w+)$/);
    const name = /output -raw (\w+)$/.exec(line)![1];
    t.match(outputs, new RegExp(`^output "${name}" \\{`, 'm'), `terraform output ${name} is an output of the tree (EKS on)`);
  }
  t.ok(ran.some((l) => l.startsWith('aws eks update-kubeconfig --name output-eks_cluster_name --region output-region')), 'kubectl is pointed at the cluster');

  const argo = parseYaml(readFileSync(join(trunk, 'gitops', 'argo-cd.yaml'), 'utf8'));
  const helm = ran.find((l) => l.startsWith('helm '))!;
  t.ok(helm, 'Argo CD is installed with helm');
  const arg = (name: string) => new RegExp(`${name} (\\S+)`).exec(helm)?.[1];
  t.match(helm, new RegExp(`^helm upgrade --install ${argo.spec.source.helm.releaseName} argo-cd `), "the release of gitops/argo-cd.yaml, so Argo CD adopts it");
  t.equal(arg('--version'), argo.spec.source.targetRevision.replace(/^argo-cd-/, ''), 'the chart version gitops/argo-cd.yaml pins');
  t.equal(arg('--namespace'), argo.spec.destination.namespace, 'in its namespace');
  const values = arg('--values')!;
  t.ok(existsSync(join(trunk, values)), `${values} is in the tree`);
  t.same(parseYaml(readFileSync(join(trunk, values), 'utf8')), argo.spec.source.helm.valuesObject, 'the values Argo CD keeps afterwards');

  const apply = ran.find((l) => l.startsWith('kubectl apply'))!;
  const folder = /--filename (\S+)/.exec(apply)![1]!;
  const namespace = /--namespace (\S+)/.exec(apply)![1]!;
  t.ok(existsSync(join(trunk, folder)), `${folder} is in the tree`);
  for (const tool of ['argo-cd', 'headlamp', 'kube-prometheus-stack']) {
    const app = parseYaml(readFileSync(join(trunk, 'gitops', `${tool}.yaml`), 'utf8'));
    t.equal(app.metadata.namespace, namespace, `gitops/${tool}.yaml goes to the namespace the commands apply it to`);
  }
});

t.test('the gitops manifests are Kubernetes objects, and the check says when one is not', async (t) => {
  const files = ['argo-cd', 'headlamp', 'kube-prometheus-stack'].map((tool) => ({
    path: `gitops/${tool}.yaml`,
    content: readFileSync(join(trunk, 'gitops', `${tool}.yaml`), 'utf8'),
    mode: 0o644,
  }));
  t.same(treeManifestFindings(files), [], 'the generated manifests pass');
  const text = files[0]!.content;
  const found = manifestFindings('gitops/argo-cd.yaml', text.replace('  name: argo-cd\n', '  name: Argo_CD\n')).map((f) => `${f.code} ${f.message}`);
  t.match(found, [/^CLUSTER_MANIFEST \/metadata\/name: /], 'a name that is no DNS subdomain');
  const spec = manifestFindings('gitops/argo-cd.yaml', text.replace('  project: default\n', '').replace('    targetRevision:', '    targetRevisoin:'));
  t.ok(spec.some((f) => f.message.startsWith('/spec/project')), 'a missing project');
  t.ok(spec.some((f) => f.message.includes('/spec/source/targetRevisoin')), 'a member the CRD does not know');
  t.match(manifestFindings('gitops/x.yaml', `${text}\n---\nkind: Secret\n`), [{ message: /2 YAML documents/ }], 'one object per file');
});
