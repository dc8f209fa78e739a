/**
 * A rehearsal of the generated pipeline against moto: the `run` scripts of its jobs, read from
 * .github/workflows/terraform.yml in order and run with bash in terraform/ (the workflow's working
 * directory) with the workflow's own environment, on a small tree (sns and ecr, no VPC: seconds, not
 * minutes; terraform-apply.test.ts applies every service).
 *
 * - With the generated backend.tf: the apply job's scripts ("Remote state", init, plan, apply) all
 *   pass, and the state lands in moto's S3 bucket (read back through the backend; none on the runner).
 * - Without it: the apply job stops at "Remote state" and no Terraform command runs; the plan job's
 *   scripts (init, plan, the summary) still pass, with local state.
 *
 * One argument is added for moto: `terraform init` gets `-backend-config=use_path_style=true`
 * (moto's endpoint is an IP address, so S3 is addressed by path). Under CI=true a missing
 * terraform or provider mirror fails the test; elsewhere it is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { extractCatalog } from '@ies/processor-lib';
import { BACKEND_FILE } from '@ies/server/jobs/generation/backend-file';
import { createStateBucket, motoEnv, stateList, writeGenerated } from '../../scripts/check-templates/moto-stack.ts';
import { terraformMissing } from '../../scripts/check-templates/terraform.ts';
import { startTestMoto } from '../harness/moto.ts';
import { configFrom, templatesDir } from './helpers.ts';
import { interpolate, readWorkflow, scripts } from './pipeline.ts';

const inCi = !!process.env.CI && process.env.CI !== 'false';
/** Quick in moto (sqs waits on a redrive policy moto never settles: scripts/check-templates/moto-gaps.ts). */
const SERVICES = ['sns', 'ecr'];

interface Ran {
  name: string;
  run: string;
  code: number;
  out: string;
}

/** The scripts of a job, in order, until one fails; each with its exit code and output. */
async function runJob(treeRoot: string, job: string, env: NodeJS.ProcessEnv): Promise<Ran[]> {
  const workflow = readWorkflow(treeRoot);
  const contexts = { github: { run_id: '1' }, vars: {}, env: {} };
  const jobEnv = { ...env, ...Object.fromEntries(Object.entries(workflow.env ?? {}).map(([k, v]) => [k, interpolate(String(v), contexts)])) };
  const ran: Ran[] = [];
  for (const step of scripts(workflow, job)) {
    const script = step.run === 'terraform init' ? `${step.run} -backend-config=use_path_style=true` : step.run;
    const result = await new Promise<Ran>((resolve) => {
      execFile('bash', ['-e', '-c', script], { cwd: join(treeRoot, 'terraform'), env: jobEnv, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ name: step.name, run: step.run, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr });
      });
    });
    ran.push(result);
    if (result.code !== 0) break;
  }
  return ran;
}

const reason = terraformMissing();
if (reason) {
  if (inCi) t.fail(`${reason}: CI must rehearse the generated pipeline`);
  else t.plan(0, `${reason}; skipped outside CI`);
} else {
  t.setTimeout(6 * 60 * 1000);
  const work = mkdtempSync(join(tmpdir(), 'ies-pipeline-rehearsal-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const catalog = await extractCatalog({ templatesDir, provider: 'aws' });
  const config = configFrom(catalog, { enabled: (k) => SERVICES.includes(k), domain: '' });
  config.gitRepository.branch = 'trunk';

  t.test('with backend.tf the apply job applies, its state in the bucket', async (t) => {
    const moto = await startTestMoto(t);
    const root = join(work, 'with-backend');
    await writeGenerated(templatesDir, config, root);
    await createStateBucket(moto.endpoint, config.terraformBackend);
    const env = { ...motoEnv(moto.endpoint), GITHUB_STEP_SUMMARY: join(work, 'summary-apply.md') };
    const ran = await runJob(root, 'apply', env);
    t.same(
      ran.map((r) => [r.name, r.code]),
      [
        ['Remote state', 0],
        ['terraform init', 0],
        ['terraform plan', 0],
        ['terraform apply', 0],
      ],
      ran.filter((r) => r.code !== 0).map((r) => r.out).join('\n') || 'every script of the apply job passes',
    );
    t.match(ran.at(-1)?.out, /Apply complete! Resources: [1-9]\d* added/, 'resources were created');
    t.notOk(existsSync(join(root, 'terraform', 'terraform.tfstate')), 'no state on the runner');
    const resources = await stateList(join(root, 'terraform'), env);
    t.ok(
      resources.some((r) => r.includes('aws_ecr_repository')) && resources.some((r) => r.includes('aws_sns_topic')),
      `the state in the bucket holds what was applied: ${resources.join(', ')}`,
    );
  });

  t.test('without backend.tf the apply job stops before Terraform; pull requests are still planned', async (t) => {
    const moto = await startTestMoto(t);
    const root = join(work, 'without-backend');
    await writeGenerated(templatesDir, config, root);
    rmSync(join(root, BACKEND_FILE));
    const env = { ...motoEnv(moto.endpoint), GITHUB_STEP_SUMMARY: join(work, 'summary-plan.md') };
    const applied = await runJob(root, 'apply', env);
    t.same(
      applied.map((r) => [r.name, r.code]),
      [['Remote state', 1]],
      'the apply job fails at its first script',
    );
    t.match(applied[0]?.out, /No remote state/);
    const planned = await runJob(root, 'plan', env);
    t.same(
      planned.map((r) => r.code),
      planned.map(() => 0),
      planned.map((r) => `${r.name}: ${r.code}`).join(', '),
    );
    t.same(
      planned.map((r) => r.run.split(' ').slice(0, 2).join(' ')),
      ['terraform init', 'terraform plan', 'terraform show'],
      'the plan job inits, plans and summarises',
    );
    t.match(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8'), /aws_sns_topic/, 'the summary shows the plan');
  });
}
