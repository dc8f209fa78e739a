/**
 * Module wiring, checked statically with the HCL parser of the processor (`terraform validate`
 * needs the providers, which a test cannot download). For every Terraform folder of the
 * tree (the root module and each folder under modules/):
 *   - each `module` block's source is a relative path to a folder of the tree;
 *   - each of its arguments is a variable the called module declares, and every variable
 *     without a default is passed; `providers` keys are providers the called module can take;
 *   - each `module.<name>.<output>` reference names a module block of that folder and an
 *     output the called module declares;
 *   - each `moved` block into a module call names a resource that module declares, from an
 *     address the folder no longer declares;
 *   - every folder under modules/ is called: catalog services from the root, internal modules
 *     (helpers.ts INTERNAL_MODULES) only from other modules.
 * The checker is also run on broken copies of the tree, so that it is known to catch them.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import t from 'tap';
import { parse as parseHcl } from '@cdktf/hcl2json';
import { INTERNAL_MODULES, SERVICE_KEYS, templatesDir } from './helpers.ts';

/** Meta-arguments of a module block: not input variables. */
const META_ARGUMENTS = new Set(['source', 'version', 'providers', 'count', 'for_each', 'depends_on']);

type Block = Record<string, unknown>;

interface ModuleCall {
  file: string;
  source: string;
  /** Folder of the called module, relative to the terraform/ folder. */
  target: string;
  args: string[];
  providers: string[];
}

interface TfModule {
  /** Folder relative to the terraform/ folder ('' for the root module). */
  dir: string;
  variables: Map<string, { required: boolean }>;
  outputs: Set<string>;
  resources: Set<string>;
  calls: Map<string, ModuleCall>;
  /** Aliased providers the module declares (configuration_aliases), as `aws.<alias>`. */
  aliases: Set<string>;
  refs: { file: string; call: string; output: string | null }[];
  moved: { file: string; from: string; to: string }[];
}

function tfFolders(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    const names = readdirSync(dir);
    if (names.some((n) => n.endsWith('.tf'))) out.push(relative(root, dir).split('\\').join('/'));
    for (const n of names) if (statSync(join(dir, n)).isDirectory()) visit(join(dir, n));
  };
  visit(root);
  return out.sort();
}

/** `${aws_kms_key.this}` -> `aws_kms_key.this` (a moved address or a provider reference). */
const bare = (v: unknown) => String(v).replace(/^\$\{(.*)\}$/s, '$1').trim();

async function readModule(root: string, dir: string): Promise<TfModule> {
  const mod: TfModule = {
    dir,
    variables: new Map(),
    outputs: new Set(),
    resources: new Set(),
    calls: new Map(),
    aliases: new Set(),
    refs: [],
    moved: [],
  };
  const folder = join(root, dir);
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.tf')).sort()) {
    const file = posix.join(dir, name);
    const parsed = (await parseHcl(file, readFileSync(join(folder, name), 'utf8'))) as Record<string, any>;
    for (const [k, blocks] of Object.entries((parsed.variable ?? {}) as Record<string, Block[]>)) {
      mod.variables.set(k, { required: !blocks.some((b) => 'default' in b) });
    }
    for (const k of Object.keys(parsed.output ?? {})) mod.outputs.add(k);
    for (const [type, named] of Object.entries((parsed.resource ?? {}) as Record<string, Block>)) {
      for (const n of Object.keys(named)) mod.resources.add(`${type}.${n}`);
    }
    for (const tf of (parsed.terraform ?? []) as Block[]) {
      for (const rp of (tf.required_providers ?? []) as Record<string, Block>[]) {
        for (const req of Object.values(rp)) {
          for (const a of (req.configuration_aliases ?? []) as string[]) mod.aliases.add(bare(a));
        }
      }
    }
    for (const [name, blocks] of Object.entries((parsed.module ?? {}) as Record<string, Block[]>)) {
      const b = blocks[0]!;
      const source = String(b.source ?? '');
      mod.calls.set(name, {
        file,
        source,
        target: posix.normalize(posix.join(dir, source)),
        args: Object.keys(b).filter((k) => !META_ARGUMENTS.has(k)),
        providers: Object.keys((b.providers ?? {}) as Block),
      });
    }
    for (const m of (parsed.moved ?? []) as Block[]) mod.moved.push({ file, from: bare(m.from), to: bare(m.to) });
    // Every module.<call>[.<output>] in the file's expressions (the converted JSON holds them as
    // "${...}" strings; a description naming one would be checked too, which errs on the safe
    // side). A moved block names addresses, not values: its module.<call>.<resource> is no output.
    const { moved: _moved, ...rest } = parsed;
    for (const m of JSON.stringify(rest).matchAll(/(?<![\w.])module\.([A-Za-z_][\w-]*)(?:\[[^\]]*\])?(?:\.([A-Za-z_][\w-]*))?/g)) {
      mod.refs.push({ file, call: m[1]!, output: m[2] ?? null });
    }
  }
  return mod;
}

/** Every wiring problem of the Terraform tree under `root` (a templates/terraform folder). */
async function wiringProblems(root: string): Promise<string[]> {
  const problems: string[] = [];
  const modules = new Map<string, TfModule>();
  for (const dir of tfFolders(root)) modules.set(dir, await readModule(root, dir));
  const callers = new Map<string, string[]>();

  for (const mod of modules.values()) {
    const where = mod.dir || '(root)';
    for (const [name, call] of mod.calls) {
      const at = `${call.file} module "${name}"`;
      if (!/^\.\.?\//.test(call.source)) {
        problems.push(`${at}: source "${call.source}" is not a relative path inside the tree`);
        continue;
      }
      const callee = modules.get(call.target);
      if (!callee) {
        problems.push(`${at}: source "${call.source}" is not a Terraform folder of the tree (${call.target})`);
        continue;
      }
      callers.set(callee.dir, [...(callers.get(callee.dir) ?? []), mod.dir]);
      for (const arg of call.args) {
        if (!callee.variables.has(arg)) problems.push(`${at}: argument ${arg} is not a variable of ${callee.dir}`);
      }
      for (const [v, { required }] of callee.variables) {
        if (required && !call.args.includes(v)) problems.push(`${at}: required variable ${v} of ${callee.dir} is not passed`);
      }
      for (const p of call.providers) {
        if (p !== 'aws' && !callee.aliases.has(p)) problems.push(`${at}: providers key ${p} is not a configuration alias of ${callee.dir}`);
      }
      for (const a of callee.aliases) {
        if (!call.providers.includes(a)) problems.push(`${at}: ${callee.dir} needs provider ${a} passed in providers`);
      }
    }
    for (const ref of mod.refs) {
      const call = mod.calls.get(ref.call);
      const text = `module.${ref.call}${ref.output ? `.${ref.output}` : ''}`;
      if (!call) {
        problems.push(`${ref.file}: ${text} names no module block of ${where}`);
        continue;
      }
      const callee = modules.get(call.target);
      if (callee && ref.output !== null && !callee.outputs.has(ref.output)) {
        problems.push(`${ref.file}: ${text} is not an output of ${callee.dir}`);
      }
    }
    for (const mv of mod.moved) {
      const m = /^module\.([A-Za-z_][\w-]*)\.(.+)$/.exec(mv.to);
      if (!m) continue;
      const call = mod.calls.get(m[1]!);
      const callee = call && modules.get(call.target);
      if (!call) problems.push(`${mv.file}: moved to ${mv.to}: no module block ${m[1]} in ${where}`);
      else if (callee && !callee.resources.has(m[2]!)) problems.push(`${mv.file}: moved to ${mv.to}: ${callee.dir} declares no resource ${m[2]}`);
      if (mod.resources.has(mv.from)) problems.push(`${mv.file}: moved from ${mv.from}, which ${where} still declares`);
    }
  }

  for (const dir of modules.keys()) {
    const m = /^modules\/([^/]+)$/.exec(dir);
    if (!m) continue;
    const from = callers.get(dir) ?? [];
    if ((INTERNAL_MODULES as readonly string[]).includes(m[1]!)) {
      if (from.length === 0) problems.push(`${dir}: internal module called by no module`);
      if (from.includes('')) problems.push(`${dir}: internal module instantiated by the root module`);
    } else if (!from.includes('')) {
      problems.push(`${dir}: service module not instantiated by the root module`);
    }
  }
  return problems;
}

const realTree = join(templatesDir, 'terraform');

t.test('every module block, module output reference and moved block of the tree is wired', async (t) => {
  const problems = await wiringProblems(realTree);
  t.same(problems, [], 'no wiring problems');
  // The checker saw the whole tree: the root, every service and every internal module.
  const folders = tfFolders(realTree);
  t.same(folders, ['', ...[...SERVICE_KEYS, ...INTERNAL_MODULES].map((k) => `modules/${k}`)].sort());
  const root = await readModule(realTree, '');
  t.equal(root.calls.size, SERVICE_KEYS.length, 'one module block per catalog service at the root');
  t.ok(root.refs.length >= 20, `${root.refs.length} module output references at the root`);
  for (const store of ['rds', 'aurora', 'elasticache', 'msk', 'opensearch']) {
    const mod = await readModule(realTree, `modules/${store}`);
    t.equal(mod.calls.get('access')?.target, 'modules/data-store-access', `${store} calls data-store-access`);
    t.equal(mod.moved.filter((m) => m.to.startsWith('module.access.')).length, 3, `${store} moves its security group, ingress rules and key into it`);
  }
  for (const svc of ['s3', 'sns', 'sqs', 'cloudfront']) {
    const mod = await readModule(realTree, `modules/${svc}`);
    t.equal(mod.calls.get('tls_only')?.target, 'modules/tls-only-policy', `${svc} calls tls-only-policy`);
  }
});

t.test('the checker catches broken wiring (in a copy of the tree)', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'ies-module-wiring-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const breakages: { name: string; file: string; from: string | RegExp; to: string; expect: RegExp }[] = [
    {
      name: 'an argument the called module does not declare',
      file: 'modules/rds/main.tf',
      from: '  protocol            = "PostgreSQL"',
      to: '  protocl             = "PostgreSQL"',
      expect: /modules\/rds\/main\.tf module "access": argument protocl is not a variable of modules\/data-store-access/,
    },
    {
      name: 'a required variable not passed',
      file: 'main.tf',
      from: /\n {2}kafka_version\s+= var\.msk_kafka_version/,
      to: '',
      expect: /main\.tf module "msk": required variable kafka_version of modules\/msk is not passed/,
    },
    {
      name: 'an output the called module does not declare',
      file: 'modules/sqs/main.tf',
      from: 'module.tls_only.json',
      to: 'module.tls_only.policy_json',
      expect: /modules\/sqs\/main\.tf: module\.tls_only\.policy_json is not an output of modules\/tls-only-policy/,
    },
    {
      name: 'a root output reading a module output that is gone',
      file: 'outputs.tf',
      from: 'module.rds.master_user_secret_arn',
      to: 'module.rds.master_secret_arn',
      expect: /outputs\.tf: module\.rds\.master_secret_arn is not an output of modules\/rds/,
    },
    {
      name: 'a reference to a module block that does not exist',
      file: 'modules/opensearch/outputs.tf',
      from: 'module.access.security_group_id',
      to: 'module.network.security_group_id',
      expect: /modules\/opensearch\/outputs\.tf: module\.network\.security_group_id names no module block of modules\/opensearch/,
    },
    {
      name: 'a source that is not a folder of the tree',
      file: 'modules/msk/main.tf',
      from: '"../data-store-access"',
      to: '"../data-store"',
      expect: /modules\/msk\/main\.tf module "access": source "\.\.\/data-store" is not a Terraform folder of the tree/,
    },
    {
      name: 'a moved block into a resource the module does not declare',
      file: 'modules/aurora/main.tf',
      from: 'to   = module.access.aws_kms_key.this',
      to: 'to   = module.access.aws_kms_key.storage',
      expect: /modules\/aurora\/main\.tf: moved to module\.access\.aws_kms_key\.storage: modules\/data-store-access declares no resource aws_kms_key\.storage/,
    },
    {
      name: 'a moved block from an address the module still declares',
      file: 'modules/elasticache/main.tf',
      from: 'resource "aws_cloudwatch_log_group" "slow_log" {',
      to: 'resource "aws_kms_key" "this" {}\n\nresource "aws_cloudwatch_log_group" "slow_log" {',
      expect: /modules\/elasticache\/main\.tf: moved from aws_kms_key\.this, which modules\/elasticache still declares/,
    },
    {
      name: 'an aliased provider not passed',
      file: 'main.tf',
      from: '    aws.us_east_1 = aws.us_east_1\n',
      to: '',
      expect: /main\.tf module "cloudfront": modules\/cloudfront needs provider aws\.us_east_1 passed in providers/,
    },
  ];
  for (const b of breakages) {
    const tree = join(work, b.name.replace(/\W+/g, '-'));
    cpSync(realTree, tree, { recursive: true });
    const file = join(tree, b.file);
    const text = readFileSync(file, 'utf8');
    const broken = text.replace(b.from, b.to);
    t.not(broken, text, `${b.name}: the copy is changed`);
    writeFileSync(file, broken);
    const problems = await wiringProblems(tree);
    t.ok(problems.some((p) => b.expect.test(p)), `${b.name}: reported (${problems.join('; ')})`);
  }
  // An internal module instantiated by the root module is reported too.
  const tree = join(work, 'internal-at-root');
  cpSync(realTree, tree, { recursive: true });
  writeFileSync(
    join(tree, 'internal.tf'),
    'module "tls" {\n  source = "./modules/tls-only-policy"\n\n  actions   = ["s3:*"]\n  resources = ["*"]\n}\n',
  );
  t.ok(
    (await wiringProblems(tree)).includes('modules/tls-only-policy: internal module instantiated by the root module'),
    'an internal module instantiated by the root module: reported',
  );
});
