/**
 * The generation gate over the real template tree, with the real processor: catalog
 * extraction --strict, and `ies-processor gate` for the configuration matrix (every service
 * enabled, every service disabled, the catalog's defaults, domain set and empty).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import YAML from 'yaml';
import { extractCatalog, processTree, runGate, type Catalog, type Finding } from '@ies/processor-lib';
import { catalogDefaults, configFrom, runCli, SERVICE_KEYS, templatesDir, type Config } from './helpers.ts';
import { readDefault } from '../../desktop/src/renderer/lib/catalog/prepared-catalog.ts';

const work = mkdtempSync(join(tmpdir(), 'ies-templates-gate-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

let catalog: Catalog;

t.before(async () => {
  catalog = await extractCatalog({ templatesDir, provider: 'aws' });
});

t.test('ies-processor --extract-catalog templates --provider aws --strict', async (t) => {
  const out = join(work, 'catalog.json');
  const run = await runCli(['--extract-catalog', 'templates', '--provider', 'aws', '--strict', '--output', out]);
  t.equal(run.code, 0, `exit 0 (stderr: ${run.stderr})`);
  const cat = JSON.parse((await import('node:fs')).readFileSync(out, 'utf8')) as Catalog;
  t.same(cat.errors, [], 'zero extraction errors');
  t.equal(cat.schemaVersion, 1);
  t.same(Object.keys(cat.global.fields).sort(), ['domain', 'globalPrefix', 'name', 'region']);
  t.same(Object.keys(cat.services).sort(), [...SERVICE_KEYS].sort(), 'exactly the fifteen AWS services');
  for (const key of SERVICE_KEYS) {
    const svc = cat.services[key]!;
    t.ok(svc.displayName, `${key} has a displayName`);
    t.ok(svc.category, `${key} has a category`);
    t.ok(svc.description, `${key} has a description`);
    const fields = Object.entries(svc.fields).filter(([k]) => k !== 'enabled');
    t.ok(fields.length >= 2, `${key} has ${fields.length} fields`);
    for (const [fk, f] of fields) {
      t.ok(f.displayName && f.description && f.type, `${key}.${fk} has displayName, description, type`);
      t.not(f.default, undefined, `${key}.${fk} has a default`);
      if (f.type === 'dropdown') {
        t.ok(Array.isArray(f.options) && f.options.length > 1, `${key}.${fk} dropdown has options`);
        t.ok('value' in readDefault('dropdown', f.default, f.options), `${key}.${fk} default is one of its options`);
      }
      if (f.pattern && typeof f.default === 'string') {
        t.match(f.default, new RegExp(f.pattern), `${key}.${fk} default matches its pattern`);
      }
    }
  }
  for (const [k, f] of Object.entries(cat.global.fields)) {
    if (f.pattern) t.match(String(f.default), new RegExp(f.pattern), `global ${k} default matches its pattern`);
  }
  t.match('', new RegExp(cat.global.fields.domain!.pattern!), 'an empty domain is valid');
  t.match('apps.example.com', new RegExp(cat.global.fields.domain!.pattern!));
  t.notMatch('localhost', new RegExp(cat.global.fields.domain!.pattern!));
});

async function gateCli(t: Test, name: string, config: Config): Promise<Finding[]> {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const run = await runCli(['gate', '--templates', 'templates', '--config', file, '--json']);
  const findings = run.stderr.trim() ? (JSON.parse(run.stderr.trim().split('\n').pop()!) as Finding[]) : [];
  t.equal(run.code === 0, findings.length === 0, `${name}: exit code agrees with the findings`);
  return findings;
}

const lines = (fs: Finding[]) => fs.map((f) => `${f.file}:${f.line} ${f.code} ${f.message}`);

t.test('gate: every service enabled, domain set', async (t) => {
  const findings = await gateCli(t, 'all-enabled-domain', configFrom(catalog, { enabled: true, domain: 'apps.example.com' }));
  t.same(lines(findings), [], 'zero findings');
});

t.test('gate: every service enabled, domain empty', async (t) => {
  const findings = await gateCli(t, 'all-enabled-nodomain', configFrom(catalog, { enabled: true, domain: '' }));
  t.same(lines(findings), [], 'zero findings');
});

for (const [name, cfg] of [
  ['every service disabled, domain empty', () => configFrom(catalog, { enabled: false, domain: '' })],
  ['every service disabled, domain set', () => configFrom(catalog, { enabled: false, domain: 'apps.example.com' })],
  ['every service disabled, only {enabled:false} sent', () => configFrom(catalog, { enabled: false, domain: '', withFields: false })],
  ['the catalog defaults', () => catalogDefaults(catalog)],
  ['half the services (vpc, waf, route53 off; eks, rds, cloudfront on)', () =>
    configFrom(catalog, { enabled: (k) => !['vpc', 'waf', 'route53', 'msk', 'lambda', 's3', 'sqs'].includes(k), domain: 'apps.example.com' })],
] as const) {
  t.test(`gate: ${name}`, async (t) => {
    const findings = await gateCli(t, name.replace(/\W+/g, '-'), cfg());
    t.same(lines(findings), [], 'zero findings');
  });
}

t.test('domain: set gives host-based ingresses and DNS, empty gives none', async (t) => {
  const on = await processTree({ templatesDir, config: configFrom(catalog, { enabled: true, domain: 'apps.example.com' }) });
  const off = await processTree({ templatesDir, config: configFrom(catalog, { enabled: true, domain: '' }) });
  t.ok(on.ok && off.ok);
  const file = (r: typeof on, p: string) => {
    const f = r.files.find((x) => x.path === p);
    if (!f) throw new Error(`${p} missing`);
    return typeof f.content === 'string' ? f.content : f.content.toString('utf8');
  };
  t.match(file(on, 'terraform/terraform.tfvars'), /^domain = "apps\.example\.com"$/m);
  t.match(file(off, 'terraform/terraform.tfvars'), /^domain = ""$/m);
  const ingressPaths: Record<string, string[][]> = {
    'charts/argo-cd/values.yaml': [['server', 'ingress']],
    'charts/headlamp/values.yaml': [['ingress']],
    'charts/kube-prometheus-stack/values.yaml': [['prometheus', 'ingress'], ['grafana', 'ingress']],
  };
  for (const [p, paths] of Object.entries(ingressPaths)) {
    const tool = p.split('/')[1]!;
    for (const [r, want] of [[on, true], [off, false]] as const) {
      const values = YAML.parse(file(r, p)) as Record<string, any>;
      const app = YAML.parse(file(r, `gitops/${tool}.yaml`)) as Record<string, any>;
      t.same(app.spec.source.helm.valuesObject, values, `gitops/${tool}.yaml inlines ${p} unchanged`);
      t.equal(values.global.environmentDomain, want ? 'apps.example.com' : '', `${p}: domain substituted`);
      for (const path of paths) {
        const ingress = path.reduce((o, k) => o?.[k], values as any);
        t.equal(ingress.enabled === true, want, `${p} ${path.join('.')}.enabled ${want ? 'on' : 'absent'}`);
      }
    }
  }
  // The pipeline's region comes from the environment.
  const cfg = configFrom(catalog, { enabled: true, domain: '' });
  cfg.region = 'us-west-2';
  const west = await processTree({ templatesDir, config: cfg });
  const wf = YAML.parse(file(west, '.github/workflows/terraform.yml')) as Record<string, any>;
  t.equal(wf.env.AWS_REGION, 'us-west-2');
  t.ok(wf.jobs.apply.permissions['id-token'] === 'write', 'apply assumes its role with OIDC');
});

t.test('a disabled service is commented out with line numbers kept', async (t) => {
  const cfg = configFrom(catalog, { enabled: (k) => k !== 'opensearch' });
  const r = await runGate({ templatesDir, config: cfg });
  const main = r.process.files.find((f) => f.path === 'terraform/main.tf')!;
  const text = typeof main.content === 'string' ? main.content : main.content.toString('utf8');
  const src = (await import('node:fs')).readFileSync(join(templatesDir, 'terraform/main.tf'), 'utf8');
  t.equal(text.split('\n').length, src.split('\n').length, 'same line count');
  t.notMatch(text, /^module "opensearch"/m, 'opensearch module commented out');
  t.match(text, /^module "eks"/m, 'eks module live');
  t.same(lines(r.findings), []);
});
