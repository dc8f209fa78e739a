/**
 * The template tree's shape: one module per catalog service, every Terraform file parses and
 * is canonical, every service is gated by its section, and every @param lives in (or, outside
 * it, only names paths declared in) the parameter-values file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { format } from '@cdktf/hcl-tools';
import { parse as parseHcl } from '@cdktf/hcl2json';
import { readTree, validateFiles } from '@ies/processor-lib';
import { INTERNAL_MODULES, paramsFile, paramsIn, readTemplate, repoRoot, SERVICE_KEYS, templatesDir } from './helpers.ts';

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(relative(templatesDir, p).split('\\').join('/'));
  }
  return out.sort();
}
const files = walk(templatesDir);

t.test('one module per catalog service, each with main, variables, outputs and versions', async (t) => {
  for (const key of [...SERVICE_KEYS, ...INTERNAL_MODULES]) {
    for (const f of ['main.tf', 'variables.tf', 'outputs.tf', 'versions.tf']) {
      t.ok(existsSync(join(templatesDir, 'terraform', 'modules', key, f)), `modules/${key}/${f}`);
    }
  }
  // Every other folder of modules/ is a documented internal module, which is not a service.
  const folders = readdirSync(join(templatesDir, 'terraform', 'modules')).sort();
  t.same(folders, [...SERVICE_KEYS, ...INTERNAL_MODULES].sort(), 'modules/ holds the catalog services and the internal modules, nothing else');
  const tfvars = readTemplate(paramsFile);
  const main = readTemplate('terraform/main.tf');
  const authorsGuide = readFileSync(join(repoRoot, 'docs', 'template-authors.md'), 'utf8');
  for (const name of INTERNAL_MODULES) {
    t.notOk((SERVICE_KEYS as readonly string[]).includes(name), `${name} is not a catalog service key`);
    t.notMatch(tfvars, new RegExp(`@(module|section|param) services\\.${name}\\b`), `no decorator names services.${name}`);
    t.notMatch(main, new RegExp(`source\\s*=\\s*"\\./modules/${name}"`), `the root module does not instantiate ${name}`);
    t.match(authorsGuide, new RegExp(`\\b${name}\\b`), `docs/template-authors.md documents ${name}`);
  }
  for (const f of ['main.tf', 'variables.tf', 'outputs.tf', 'versions.tf', 'providers.tf', 'terraform.tfvars']) {
    t.ok(existsSync(join(templatesDir, 'terraform', f)), `root ${f}`);
  }
});

t.test('Terraform and providers are pinned', async (t) => {
  const versions = readTemplate('terraform/versions.tf');
  t.match(versions, /required_version\s*=\s*">= 1\.11\.0, < 2\.0\.0"/);
  t.match(versions, /source\s*=\s*"hashicorp\/aws"\s*\n\s*version\s*=\s*"~> 5\.100\.0"/);
  t.notMatch(versions, /backend\s+"/, 'no backend block: the generation job writes backend.tf');
});

t.test('every .tf and .tfvars file parses and is in terraform fmt form', async (t) => {
  const tf = files.filter((f) => /\.(tf|tfvars)$/.test(f));
  t.ok(tf.length > 60, `${tf.length} Terraform files`);
  for (const f of tf) {
    const text = readTemplate(f);
    t.equal(await format(text), text, `${f} is canonical`);
    await t.resolves(parseHcl(f, text), `${f} parses`);
  }
});

t.test('the unprocessed tree passes the gate validation (parse, format, declared var./local.)', async (t) => {
  const { inputs, unsupported } = await readTree(templatesDir);
  t.same(unsupported, []);
  const findings = await validateFiles(inputs.map((i) => ({ path: i.path, content: i.content, mode: i.mode })));
  t.same(findings, [], 'no findings');
});

t.test('every tfvars assignment is a declared root variable with a default', async (t) => {
  const tfvars = (await parseHcl('terraform.tfvars', readTemplate(paramsFile))) as Record<string, unknown>;
  const declared = new Map<string, Record<string, unknown>>();
  for (const f of files.filter((f) => /^terraform\/[^/]+\.tf$/.test(f))) {
    const parsed = (await parseHcl(f, readTemplate(f))) as { variable?: Record<string, Record<string, unknown>[]> };
    for (const [k, v] of Object.entries(parsed.variable ?? {})) declared.set(k, v[0]!);
  }
  for (const [k, v] of Object.entries(tfvars)) {
    t.ok(declared.has(k), `${k} is declared`);
    // Disabled services comment their tfvars lines out: the variable default must stand in.
    t.ok(declared.get(k) && 'default' in declared.get(k)!, `${k} has a default`);
    t.same(declared.get(k)?.default, v, `${k}: variable default equals the tfvars working default`);
  }
});

t.test('every service is gated by @section services.<key>.enabled where it is instantiated', async (t) => {
  const main = readTemplate('terraform/main.tf');
  const tfvars = readTemplate(paramsFile);
  const outputs = readTemplate('terraform/outputs.tf');
  for (const key of SERVICE_KEYS) {
    const gated = new RegExp(
      `^# @section services\\.${key}\\.enabled begin\\nmodule "${key}" \\{\\n[\\s\\S]*?\\n\\}\\n# @section services\\.${key}\\.enabled end$`,
      'm',
    );
    t.match(main, gated, `module "${key}" sits inside its section`);
    t.match(tfvars, new RegExp(`^# @module services\\.${key} \\|`, 'm'), `@module services.${key}`);
    t.match(tfvars, new RegExp(`^# @section services\\.${key}\\.enabled begin$[\\s\\S]*?^# @section services\\.${key}\\.enabled end$`, 'm'), `tfvars block of ${key} is gated`);
    // Every reference to module.<key> outside main.tf must be gated by the same section.
    for (const f of files.filter((f) => /^terraform\/[^/]+\.tf$/.test(f) && f !== 'terraform/main.tf')) {
      const text = readTemplate(f);
      let open = 0;
      text.split('\n').forEach((line, i) => {
        if (line.includes(`@section services.${key}.enabled begin`)) open++;
        else if (line.includes(`@section services.${key}.enabled end`)) open--;
        else if (new RegExp(`\\bmodule\\.${key}\\b`).test(line) && !/^\s*#/.test(line)) {
          t.ok(open > 0, `${f}:${i + 1} references module.${key} inside its section`);
        }
      });
    }
  }
  t.match(outputs, /@section services\.vpc\.enabled begin/);
});

/**
 * Paths of the processor input that are no catalog field (spec, "Transform", rule 3): sent only when
 * the environment has them, so a @param of one sits inside `@section <its path>` (an environment
 * without it keeps the lines commented out instead of an UNRESOLVED_PARAM).
 */
const INPUT_ONLY_PATHS = ['gitRepository.branch'];

t.test('every @param is in the parameter-values file, or names a path it declares', async (t) => {
  const declared = new Set([...paramsIn(readTemplate(paramsFile)).map((p) => p.path), ...INPUT_ONLY_PATHS]);
  t.ok(declared.has('name') && declared.has('globalPrefix') && declared.has('region') && declared.has('domain'));
  const outside = files.filter((f) => f !== paramsFile && !f.startsWith('terraform/modules/'));
  let count = 0;
  // Markdown is copied as it is, never decorated.
  for (const f of files) {
    if (f === paramsFile || f.endsWith('.md')) continue;
    for (const p of paramsIn(readTemplate(f))) {
      count++;
      t.ok(!f.endsWith('.tf') && !f.endsWith('.tfvars'), `${f}:${p.line} no @param in Terraform outside ${paramsFile}`);
      t.ok(declared.has(p.path), `${f}:${p.line} @param ${p.path} is declared in ${paramsFile}`);
      if (INPUT_ONLY_PATHS.includes(p.path)) {
        const above = readTemplate(f).split('\n').slice(0, p.line - 1).reverse();
        const open = above.find((l) => l.includes(`@section ${p.path} `));
        t.match(open, /begin\s*$/, `${f}:${p.line} @param ${p.path} sits inside @section ${p.path}`);
      }
    }
  }
  t.ok(outside.length > 0);
  t.ok(count >= 7, `${count} @param lines outside the parameter-values file (charts, gitops, workflow)`);
});

t.test('the pipeline and every YAML file is present', async (t) => {
  for (const f of [
    '.github/workflows/terraform.yml',
    'charts/argo-cd/values.yaml',
    'charts/headlamp/values.yaml',
    'charts/kube-prometheus-stack/values.yaml',
    'gitops/argo-cd.yaml',
    'gitops/headlamp.yaml',
    'gitops/kube-prometheus-stack.yaml',
    'terraform/README.md',
    'terraform/UPGRADING.md',
  ]) {
    t.ok(files.includes(f), f);
  }
});
