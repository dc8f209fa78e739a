/**
 * The generated pipeline (.github/workflows/terraform.yml) as GitHub would run it, as far as that can
 * be done here: its job conditions evaluated with GitHub's own expression language
 * (@actions/expressions, the evaluator of GitHub's workflow tooling) for a given event, the `branch`
 * job's step run with bash, and the `run` scripts of a job's steps read in order. Tests read the
 * workflow as written, never a copy of its commands.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { parse as parseYaml } from 'yaml';

const run = promisify(execFile);

export interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  if?: string;
  'working-directory'?: string;
}

export interface Job {
  name?: string;
  needs?: string | string[];
  if?: string;
  environment?: string;
  outputs?: Record<string, string>;
  steps: Step[];
}

export interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export const WORKFLOW = join('.github', 'workflows', 'terraform.yml');

export function readWorkflow(treeRoot: string): Workflow {
  return parseYaml(readFileSync(join(treeRoot, WORKFLOW), 'utf8')) as Workflow;
}

/** An event as GitHub describes it to the workflow: its name, the ref and, for a pull request, the base branch. */
export interface Event {
  name: 'push' | 'pull_request' | 'workflow_dispatch';
  /** The branch pushed (or dispatched on); for a pull request, the head branch. */
  branch: string;
  /** A pull request's base branch. */
  base?: string;
  /** The repository's default branch, as GitHub reports it. */
  defaultBranch: string;
}

function githubContext(event: Event): Record<string, unknown> {
  const pr = event.name === 'pull_request';
  return {
    event_name: event.name,
    ref: pr ? `refs/pull/1/merge` : `refs/heads/${event.branch}`,
    ref_name: pr ? '1/merge' : event.branch,
    base_ref: pr ? event.base : '',
    head_ref: pr ? event.branch : '',
    event: { repository: { default_branch: event.defaultBranch } },
  };
}

/** A GitHub expression (without `${{ }}`) evaluated with the given contexts. */
export function evaluate(expression: string, contexts: Record<string, unknown>): unknown {
  const lexed = new Lexer(expression).lex();
  const parsed = new Parser(lexed.tokens, Object.keys(contexts), []).parse();
  const dictionary = JSON.parse(JSON.stringify(contexts), data.reviver) as data.Dictionary;
  const result = new Evaluator(parsed, dictionary).evaluate();
  return JSON.parse(JSON.stringify(result, data.replacer));
}

/** `${{ ... }}` in a value replaced by the expression's value (strings only). */
export function interpolate(value: string, contexts: Record<string, unknown>): string {
  return value.replace(/\$\{\{\s*([\s\S]*?)\s*\}\}/g, (_, expr: string) => String(evaluate(expr, contexts) ?? ''));
}

/**
 * The environment's branch for an event: the `branch` job's one step, run with bash with its
 * environment as GitHub would set it; its `name` output.
 */
export async function environmentBranch(workflow: Workflow, event: Event): Promise<string> {
  const job = workflow.jobs.branch;
  if (!job) throw new Error('the pipeline has no `branch` job any more: update this test');
  const [step] = job.steps;
  if (!step?.run || !step.id) throw new Error('the `branch` job has no step with an id and a script: update this test');
  const contexts = { github: githubContext(event) };
  const dir = mkdtempSync(join(tmpdir(), 'ies-pipeline-'));
  try {
    const output = join(dir, 'output');
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', GITHUB_OUTPUT: output };
    for (const [k, v] of Object.entries({ ...workflow.env, ...step.env })) env[k] = interpolate(String(v), contexts);
    await run('bash', ['-e', '-c', step.run], { cwd: dir, env });
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const expression = /^\$\{\{\s*steps\.([\w-]+)\.outputs\.name\s*\}\}$/.exec(job.outputs?.name ?? '');
    if (expression?.[1] !== step.id) throw new Error('the `branch` job no longer outputs its step\'s `name`: update this test');
    return outputs.name ?? '';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether a job runs for an event (its `if`, with the environment's branch as the `branch` job's output). */
export function jobRuns(workflow: Workflow, jobName: string, event: Event, branch: string): boolean {
  const job = workflow.jobs[jobName];
  if (!job) throw new Error(`the pipeline has no job ${jobName}`);
  if (!job.if) return true;
  return evaluate(job.if, { github: githubContext(event), needs: { branch: { outputs: { name: branch } } } }) === true;
}

/** Whether the workflow starts at all for an event (its `on` filters: branches are all that matter here). */
export function triggered(workflow: Workflow, event: Event): boolean {
  const on = workflow.on[event.name] as { branches?: string[] } | null | undefined;
  if (on === undefined) return false;
  const branches = on?.branches;
  if (!branches) return true;
  return branches.includes(event.name === 'pull_request' ? event.base! : event.branch);
}

/** The `run` scripts of a job's steps, in order, each with its name. */
export function scripts(workflow: Workflow, jobName: string): { name: string; run: string }[] {
  return workflow.jobs[jobName]!.steps.filter((s) => s.run).map((s) => ({ name: s.name ?? s.run!.split('\n')[0]!, run: s.run!.trim() }));
}
