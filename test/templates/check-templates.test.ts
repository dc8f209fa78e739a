/**
 * `npm run check:templates` over templates/ as CI runs it (its one run there): the author checks,
 * the gate matrix, `terraform fmt -check` and `validate`, checkov and tflint, the migrations and
 * the desktop's built-in catalog must give no finding. The command is run as an author runs it, so
 * its exit code and report are what is checked; a failure shows the report. This is the one
 * checkov and tflint run over the trees of the gate matrix (security-scan.test.ts runs the other
 * scanners and a broken copy), so checkov must also have evaluated what the every-service tree
 * deploys (hundreds of passed checks), lest "no finding" mean "nothing scanned". Under CI=true Terraform
 * and the scanners must run; elsewhere a missing scanner leaves them out (said in a comment), and
 * check:templates itself skips Terraform with the reason when it cannot run.
 */
import { execFile } from 'node:child_process';
import t from 'tap';
import { repoRoot, templatesDir } from './helpers.ts';
import { missingTools } from './security-scan.ts';

// Terraform and the scanners over every tree of the matrix: a minute or two, more beside other files.
t.setTimeout(900_000);
const inCi = !!process.env.CI && process.env.CI !== 'false';
const scanners = missingTools();

/** `check:templates` over templates/ with the given options. */
const checkTemplates = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/check-templates.ts', templatesDir, ...args],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
    );
  });

t.test('check:templates over templates/: no finding, Terraform and the scanners included', async (t) => {
  const noScan = scanners && !inCi ? ['--no-scan'] : [];
  if (noScan.length) t.comment(`${scanners}: the check runs without the scanners outside CI`);
  const r = await checkTemplates(...noScan);
  t.comment(r.stdout.split('\n').filter((l) => l.startsWith('check:templates:')).join('\n'));
  t.equal(r.code, 0, `check:templates passes:\n${r.stdout}${r.stderr}`);
  t.match(r.stdout, /check:templates: ok; \d+ configurations, \d+ Terraform trees validated, \d+ scanned by checkov and tflint/);
  if (inCi) {
    t.notMatch(r.stdout, /terraform skipped/, 'Terraform ran');
    t.notMatch(r.stdout, / 0 scanned by checkov/, 'checkov and tflint scanned the trees');
  }
  if (!noScan.length) {
    const deployed = /checkov passed (\d+) checks on what "all services on" deploys/.exec(r.stdout);
    t.ok(deployed && Number(deployed[1]) > 500, `checkov evaluated the every-service tree's resources with its values (${deployed?.[0] ?? 'no such line'})`);
  }
});

t.test('--service with a key the catalog does not have is a usage error', async (t) => {
  const r = await checkTemplates('--service', 'no-such-service', '--no-terraform', '--no-scan');
  t.equal(r.code, 2);
  t.match(r.stderr, /check:templates: no service "no-such-service" in the catalog of /);
});
