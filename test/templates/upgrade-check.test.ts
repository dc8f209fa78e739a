/**
 * The upgrade check (scripts/check-templates/upgrade.ts), CI's one run of it included. One
 * environment is applied to moto: the every-service tree of the templates before their last change
 * (upgradeBase: IES_UPGRADE_FROM, else the parent of the last commit that touched templates/; the
 * checkout's own templates when the clone has no such commit, as a shallow one). Against it are
 * planned: the templates of this checkout, which must lose no data (what `.ci/run` used to run as
 * `check:templates -- --upgrade-from`; skipped with the reason without that commit), and trees with
 * a planted change: the aurora cluster renamed without a `moved` block must be caught (its
 * destruction named, the data lost said), the same rename with a `moved` block must pass, and the
 * rename declared in UPGRADING.md must pass with the declaration's words as a warning. The planted
 * trees are judged beside the checkout's own plan (what the real change since that commit shows
 * is the same in all of them). The command's git side: an unknown commit is refused, and unchanged
 * templates are skipped with the reason, without moto. Under CI=true a missing terraform or
 * provider mirror fails the test; elsewhere it is skipped.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { terraformMissing } from '../../scripts/check-templates/terraform.ts';
import {
  applyOlder,
  checkUpgrade,
  DECLARATIONS_FILE,
  parseDeclarations,
  planUpgrade,
  templatesAt,
  upgradeBase,
  type OlderEnvironment,
  type UpgradeResult,
} from '../../scripts/check-templates/upgrade.ts';
import { templatesDir } from './helpers.ts';

const inCi = !!process.env.CI && process.env.CI !== 'false';
// One apply of the every-service tree and four plans against moto: minutes, more than the default per-file timeout.
t.setTimeout(15 * 60 * 1000);
const work = mkdtempSync(join(tmpdir(), 'ies-upgrade-check-test-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const AURORA = 'terraform/modules/aurora';
const RENAMED = 'module.aurora.aws_rds_cluster.this';

/** A copy of the templates with the aurora cluster renamed from `this` to `main` in every file of its module. */
function plantRename(name: string): string {
  const dir = join(work, name);
  cpSync(templatesDir, dir, { recursive: true });
  let renamed = 0;
  for (const file of readdirSync(join(dir, AURORA)).filter((f) => f.endsWith('.tf'))) {
    const path = join(dir, AURORA, file);
    const text = readFileSync(path, 'utf8');
    const next = text.replace(/resource "aws_rds_cluster" "this"/g, 'resource "aws_rds_cluster" "main"').replace(/\baws_rds_cluster\.this\b/g, 'aws_rds_cluster.main');
    if (next !== text) renamed++;
    writeFileSync(path, next);
  }
  if (renamed === 0) throw new Error(`no aws_rds_cluster "this" in ${AURORA}: the planted change needs updating`);
  return dir;
}

t.test('declarations: `- `<address>` is replaced|destroyed: <words>` lines, instance keys dropped', async (t) => {
  const text = ['# Upgrading', '', '- `module.a.aws_s3_bucket.b["x"]` is replaced: the bucket moves region.', '- not a declaration', '- `module.c.aws_kms_key.d` is destroyed: unused.'].join('\n');
  t.same(parseDeclarations(text), [
    { address: 'module.a.aws_s3_bucket.b', words: 'the bucket moves region.' },
    { address: 'module.c.aws_kms_key.d', words: 'unused.' },
  ]);
});

t.test('the command side: an unknown commit is refused, unchanged templates are skipped', async (t) => {
  const repo = join(work, 'repo');
  cpSync(templatesDir, join(repo, 'templates'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'templates');
  await t.rejects(checkUpgrade({ templatesDir: join(repo, 'templates'), from: '0123456789abcdef0123456789abcdef01234567' }), /no such commit/);
  const unchanged = await checkUpgrade({ templatesDir: join(repo, 'templates'), from: 'HEAD' });
  t.equal(unchanged.skipped, 'templates/ did not change since HEAD');
  t.same(unchanged.findings, []);
});

const reason = terraformMissing();
if (reason) {
  if (inCi) t.fail(`${reason}: CI must run the upgrade check`);
  else t.test('the planted rename', { skip: `${reason}; skipped outside CI` }, async () => {});
} else {
  let older: OlderEnvironment;
  /** The checkout's own templates planned against the older environment: CI's upgrade check. */
  let baseline: UpgradeResult;
  const base = await upgradeBase(templatesDir);
  const lines: string[] = [];
  const messages = (r: UpgradeResult) => r.findings.map((f) => f.message);
  t.before(async () => {
    const log = (line: string) => lines.push(line);
    if ('commit' in base) {
      const old = await templatesAt(templatesDir, base.commit, join(work, 'base'));
      older = await applyOlder(old.dir, base.commit, join(work, 'older'), log);
    } else older = await applyOlder(templatesDir, 'the checkout', join(work, 'older'), log);
    baseline = await planUpgrade(older, templatesDir);
  });
  t.teardown(() => older?.stop());

  t.test('the templates of this checkout lose no data in an environment made before their last change', { skip: 'skipped' in base ? base.skipped : false }, async (t) => {
    t.comment(lines.join('\n'));
    for (const w of baseline.warnings) t.comment(`declared in ${DECLARATIONS_FILE}: ${w}`);
    t.same(messages(baseline), [], `no undeclared replacement since ${'commit' in base ? base.commit : ''}`);
  });

  t.test('a database renamed without a moved block is caught', async (t) => {
    const result = await planUpgrade(older, plantRename('renamed'));
    t.comment(lines.join('\n'));
    const named = result.findings.filter((f) => f.code === 'UPGRADE_REPLACES' && f.message.startsWith(`${RENAMED}, a database cluster`));
    t.equal(named.length, 1, `the old address is named: ${messages(result).join('\n')}`);
    t.match(named[0]?.message ?? '', /would be destroyed in environments made from .*its data would be lost/);
    t.same(result.warnings, baseline.warnings, 'no warning but those of the checkout itself');
  });

  t.test('the same rename with a moved block passes', async (t) => {
    const dir = plantRename('moved');
    appendFileSync(join(dir, AURORA, 'main.tf'), '\nmoved {\n  from = aws_rds_cluster.this\n  to   = aws_rds_cluster.main\n}\n');
    const result = await planUpgrade(older, dir);
    t.same(messages(result), messages(baseline), 'no data holder replaced (but those of the checkout itself)');
    const moved = result.changes.find((c) => c.address === 'module.aurora.aws_rds_cluster.main');
    t.equal(moved?.previous_address, RENAMED, 'the plan moves the cluster');
    t.notOk(moved?.change.actions.includes('delete'), `and keeps it: ${JSON.stringify(moved?.change.actions)}`);
  });

  t.test('the rename declared in UPGRADING.md passes, with its words as warnings', async (t) => {
    const dir = plantRename('declared');
    // The new cluster's id is unknown until it exists, so its instances are replaced with it.
    const declarations = [
      [RENAMED, 'destroyed', 'the Aurora cluster is created anew and starts empty: restore it from its final snapshot.'],
      ['module.aurora.aws_rds_cluster_instance.this', 'replaced', 'the cluster instances are created anew with the cluster.'],
    ];
    appendFileSync(join(dir, DECLARATIONS_FILE), declarations.map(([a, verb, words]) => `\n- \`${a}\` is ${verb}: ${words}`).join('') + '\n');
    const result = await planUpgrade(older, dir);
    t.same(messages(result), messages(baseline), 'declared, so not a finding');
    t.ok(result.warnings.includes(`${RENAMED} (database cluster) is destroyed: ${declarations[0]![2]}`), `the declaration's words: ${result.warnings.join('\n')}`);
    t.ok(result.warnings.length >= baseline.warnings.length + 2, 'the instances too');
  });
}
