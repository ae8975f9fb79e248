/// <reference types="node" />
// Journeys through the console in a real browser against the real service (see README.md here).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { ADMIN, type ConsoleRig, chromiumMissing, IN_CI, startConsoleRig } from './harness.ts';

const missing = chromiumMissing();
if (missing && !IN_CI) console.warn(`Skipping the console journeys: ${missing}`);

const ANALYST = { email: 'analyst@example.test', password: 'e2e analyst password' } as const;

/** The lab's destinations, one per kind (names from test/simulators/lab-siems.ts). */
const DESTINATIONS = { vendorA_hec: 'sim-hec', vendorB_bulk: 'sim-bulk', syslog_tcp: 'sim-syslog' } as const;
const NOISE_ARCHIVE_PATH = 'e2e/firewall.zip';
const NOISE_JOB = 'e2e firewall noise';

const SYSLOG_SOURCE_IDENTITY = 'e2e-firewall';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A destination form's input by its label, which may end in "(required…)". */
function settingInput(form: Locator, label: string): Locator {
  return form.getByLabel(new RegExp(`^${escapeRegExp(label)}( \\(required[^)]*\\))?$`));
}

/** A small LEEF noise archive: a few firewall events with devTime in epoch milliseconds. */
function noiseArchive(): Buffer {
  const t = Date.UTC(2024, 5, 1, 10, 0, 0);
  const lines = [0, 1, 2, 3, 4].map(
    (i) =>
      `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.${10 + i}\tdst=192.0.2.10\tdstPort=443\tdevTime=${t + i * 60_000}`,
  );
  return buildZip([{ name: 'firewall/fw.log', data: `${lines.join('\n')}\n` }]);
}

describe.skipIf(missing !== undefined && !IN_CI)('console journeys', () => {
  let rig: ConsoleRig;

  beforeAll(async () => {
    // Under CI a missing browser fails every journey with this message instead of skipping them.
    if (missing) throw new Error(missing);
    rig = await startConsoleRig();
  });

  // A failed journey leaves a picture of where it stopped.
  afterEach(async ({ task }) => {
    if (rig && task.result?.state === 'fail') {
      await rig.shot(`failed-${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await rig?.close();
  });

  /** Texts of the main navigation's links. */
  const navLinks = async () =>
    rig.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();

  /** Events each simulator holds so far. */
  function shippedToSimulators(): { hec: number; bulk: number; syslog: number } {
    const { hec, bulk, syslog } = rig.siems;
    return {
      hec: hec.store.searchable().length,
      bulk: [...bulk.store.indexes.values()].reduce((n, index) => n + index.docs.size, 0),
      syslog: syslog.store.messages.length,
    };
  }

  /** Signs the admin in unless a session is there already (so `-t` can run one journey alone). */
  async function asAdmin(): Promise<void> {
    const { page } = rig;
    await page.goto('/');
    const signIn = page.getByRole('heading', { name: 'Sign in to Socdrill' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    await signIn.or(nav).first().waitFor();
    if (await signIn.isVisible()) await rig.signIn(ADMIN.email, ADMIN.password);
  }

  /** Creates through the API the lab destinations a journey needs when an earlier one did not. */
  async function ensureDestinations(): Promise<void> {
    const listed = await rig.api('GET', '/api/destinations');
    expect(listed.status).toBe(200);
    const have = new Set((listed.json as Array<{ name: string }>).map((d) => d.name));
    for (const driver of Object.keys(DESTINATIONS) as Array<keyof typeof DESTINATIONS>) {
      const body = rig.siems.destinations[driver];
      if (have.has(body.name as string)) continue;
      const identity = body.driver === 'syslog_tcp' ? { source_identity: SYSLOG_SOURCE_IDENTITY } : {};
      const created = await rig.api('POST', '/api/destinations', { ...body, ...identity });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
    }
  }

  /** The noise archive and a job re-fired on wipe, through the API, when journey 3 did not make them. */
  async function ensureNoiseJob(): Promise<void> {
    await ensureDestinations();
    const archives = await rig.api('GET', '/api/noise/archives');
    const paths = JSON.stringify(archives.json);
    if (!paths.includes(NOISE_ARCHIVE_PATH)) {
      const put = await rig.api('PUT', `/api/noise/archives/${NOISE_ARCHIVE_PATH}`, noiseArchive());
      expect(put.status, JSON.stringify(put.json)).toBeLessThan(300);
    }
    const jobs = await rig.api('GET', '/api/noise/jobs');
    if (JSON.stringify(jobs.json).includes(NOISE_JOB)) return;
    const created = await rig.api('POST', '/api/noise/jobs', {
      name: NOISE_JOB,
      targets: Object.values(DESTINATIONS),
      schedule: { kind: 'interval', interval_seconds: 3600 },
      propagate_on_wipe: true,
      archives: [{ position: 0, storage_path: NOISE_ARCHIVE_PATH, index_mode: 'default' }],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
  }

  it('1. admin signs in and the dashboard shows the platform components', async () => {
    const { page } = rig;
    await rig.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await page.getByRole('heading', { name: 'Sign in to Socdrill' }).waitFor();
    await rig.shot('sign-in');

    await rig.signIn(ADMIN.email, ADMIN.password);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await navLinks()).toEqual([
      'Dashboard',
      'SIEM destinations',
      'Noise',
      'Wipe',
      'Users and roles',
      'Audit log',
    ]);

    // Every component the service reports is named on the dashboard.
    const status = await rig.api('GET', '/api/platform-status');
    expect(status.status).toBe(200);
    const components = (status.json as { components: Array<{ id: string; name: string }> }).components;
    expect(components.length).toBeGreaterThan(0);
    await page.getByRole('heading', { level: 1, name: 'Platform status' }).waitFor();
    const main = page.getByRole('main');
    for (const component of components) {
      // The row's header is the component's name (its id beside it when they differ).
      const header = main.getByRole('rowheader', { name: new RegExp(`^${escapeRegExp(component.name)}`) });
      await header.first().waitFor({ timeout: 30_000 });
    }
    await rig.shot('dashboard-before-destinations');
  });

  it('2. creates a destination of each kind through the form and tests its connection', async () => {
    const { page } = rig;
    await asAdmin();
    const lab = rig.siems.destinations;
    const { bulk } = rig.siems;
    const forms: Array<{ driver: keyof typeof DESTINATIONS; fields: Array<[string, string]> }> = [
      {
        driver: 'vendorA_hec',
        fields: [
          ['Name', DESTINATIONS.vendorA_hec],
          ['URL', String(lab.vendorA_hec.url)],
          ['Token', String(lab.vendorA_hec.token)],
          ['Index', String(lab.vendorA_hec.index)],
          ['Management URL', String(lab.vendorA_hec.management_url)],
          ['Management token', String(lab.vendorA_hec.management_token)],
        ],
      },
      {
        driver: 'vendorB_bulk',
        fields: [
          ['Name', DESTINATIONS.vendorB_bulk],
          ['URL', String(lab.vendorB_bulk.url)],
          ['Index', String(lab.vendorB_bulk.index)],
          ...(bulk.apiKey
            ? [['API key', bulk.apiKey] as [string, string]]
            : [
                ['Username', bulk.username] as [string, string],
                ['Password', bulk.password] as [string, string],
              ]),
        ],
      },
      {
        driver: 'syslog_tcp',
        fields: [
          ['Name', DESTINATIONS.syslog_tcp],
          ['Host', String(lab.syslog_tcp.host)],
          ['Port', String(lab.syslog_tcp.port)],
          ['Index', String(lab.syslog_tcp.index)],
          ['Source identity', SYSLOG_SOURCE_IDENTITY],
        ],
      },
    ];
    for (const { driver, fields } of forms) {
      await rig.goto('/destinations');
      await page.getByRole('heading', { level: 1, name: 'SIEM destinations' }).waitFor();
      await page.getByRole('link', { name: 'New destination' }).click();
      await page.getByRole('heading', { level: 1, name: 'New destination' }).waitFor();
      const kind = page.getByRole('group', { name: 'Kind of SIEM' }).getByRole('radio', {
        name: new RegExp(`\\(${driver};`),
      });
      // The choice is kept in the address (?kind=), so the radio turns checked once the router has moved.
      await kind.click();
      await expect.poll(() => kind.isChecked()).toBe(true);
      const form = page.getByRole('form', { name: / settings$/ });
      for (const [label, value] of fields) await settingInput(form, label).fill(value);
      await rig.shot(`destination-new-${driver}`);
      await form.getByRole('button', { name: 'Create destination' }).click();

      const name = DESTINATIONS[driver];
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/destinations/${name}`);
      await page.getByRole('button', { name: 'Test connection' }).click();
      const verdict = page.getByRole('heading', {
        level: 3,
        name: /^Connection (works|failed|not confirmed)/,
      });
      await verdict.waitFor({ timeout: 45_000 });
      await rig.shot(`destination-${driver}-tested`);
      const steps = await page
        .getByRole('list')
        .filter({ has: page.locator('.check-name') })
        .textContent();
      expect(await verdict.textContent(), `${name}: ${steps}`).toMatch(
        /^Connection works: every check passed/,
      );
    }

    // The dashboard now checks the three SIEMs too; the list shows their state.
    await rig.goto('/');
    for (const name of Object.values(DESTINATIONS)) {
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
      await row.getByRole('cell', { name: 'up', exact: true }).waitFor({ timeout: 30_000 });
    }
    await rig.shot('dashboard', { docs: true });

    await rig.goto('/destinations');
    const table = page.getByRole('table', { name: 'SIEM destinations' });
    for (const name of Object.values(DESTINATIONS)) {
      const row = table.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
      await row.getByRole('cell', { name: 'up', exact: true }).waitFor({ timeout: 30_000 });
    }
    await rig.shot('destinations', { docs: true });
  });

  it('3. uploads a noise archive, creates a job on the destinations and runs it', async () => {
    const { page } = rig;
    await asAdmin();
    await ensureDestinations();
    const file = path.join(rig.tmpDir, 'firewall.zip');
    writeFileSync(file, noiseArchive());

    // The archive library: upload through the file input.
    await rig.goto('/noise');
    await page.getByRole('heading', { level: 1, name: 'Noise' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Archive library' }).waitFor();
    await page.getByLabel('Archive (.zip)').setInputFiles(file);
    await page.getByLabel('Storage path').fill(NOISE_ARCHIVE_PATH);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Stored as ${NOISE_ARCHIVE_PATH}.` })
      .waitFor();
    await page.getByRole('cell', { name: NOISE_ARCHIVE_PATH, exact: true }).waitFor();
    await rig.shot('noise-archives');

    // A job on the three destinations, re-fired after a wipe.
    await page.getByRole('navigation', { name: 'Noise' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { level: 2, name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'New job' }).click();
    const form = page.getByRole('form', { name: 'New noise job' });
    await form.waitFor();
    await form.getByLabel('Name', { exact: true }).fill(NOISE_JOB);
    await form.getByLabel(/propagate on wipe/).check();
    const targets = form.getByRole('group', { name: 'Targets' });
    for (const name of Object.values(DESTINATIONS)) {
      await targets.getByRole('checkbox', { name: new RegExp(`^${escapeRegExp(name)} \\(`) }).check();
    }
    await form.getByRole('button', { name: 'Add archive' }).click();
    await form.getByLabel('Archive 1', { exact: true }).selectOption(NOISE_ARCHIVE_PATH);
    await rig.shot('noise-job-new');
    await form.getByRole('button', { name: 'Create job' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Job ${NOISE_JOB} saved.` })
      .waitFor();
    await page.getByRole('link', { name: NOISE_JOB, exact: true }).waitFor();
    await rig.shot('noise-jobs');

    // Run now, and every target's run succeeds.
    const before = shippedToSimulators();
    await page.getByRole('link', { name: `Runs of ${NOISE_JOB}` }).click();
    await page.getByRole('heading', { level: 2, name: 'Runs' }).waitFor();
    expect(await page.getByLabel('Job', { exact: true }).inputValue()).not.toBe('');
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').filter({ hasText: 'Started 3 run(s)' }).waitFor();
    const history = page.getByRole('table', { name: 'Run history' });
    await expect
      .poll(async () => (await history.getByRole('row').allTextContents()).length, { timeout: 30_000 })
      .toBe(4);
    await expect
      .poll(
        async () => {
          const rows = await history.getByRole('row').allTextContents();
          return rows.slice(1).filter((row) => row.includes('succeeded')).length;
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe(3);
    await rig.shot('noise-runs');
    const after = shippedToSimulators();
    expect(after.hec - before.hec).toBe(5);
    expect(after.bulk - before.bulk).toBe(5);
    expect(after.syslog - before.syslog).toBe(5);
  });

  it('4. wipes the SIEMs with re-fire after a typed confirmation', async () => {
    const { page } = rig;
    await asAdmin();
    await ensureNoiseJob();
    await rig.goto('/wipe');
    await page.getByRole('heading', { level: 1, name: 'Wipe SIEMs' }).waitFor();
    const siems = page.getByRole('group', { name: 'SIEM destinations' });
    await siems.getByRole('checkbox', { name: DESTINATIONS.vendorA_hec, exact: true }).check();
    await siems.getByRole('checkbox', { name: DESTINATIONS.vendorB_bulk, exact: true }).check();
    // syslog has no delete API: offered, but not choosable.
    await expect(
      siems.getByRole('checkbox', { name: DESTINATIONS.syslog_tcp, exact: true }).isDisabled(),
    ).resolves.toBe(true);

    const wipeButton = page.getByRole('button', { name: 'Wipe permanently' });
    expect(await wipeButton.isDisabled()).toBe(true);
    const confirmation = page.getByLabel('Confirmation');
    // The text to type is the input's description.
    const help = await confirmation.getAttribute('aria-describedby');
    const expected = ((await page.locator(`[id="${help}"] code`).textContent()) ?? '').trim();
    expect(expected).toMatch(/^wipe /);
    expect(expected).toContain(DESTINATIONS.vendorA_hec);
    expect(expected).toContain(DESTINATIONS.vendorB_bulk);
    await confirmation.fill(`${expected} `);
    expect(await wipeButton.isDisabled()).toBe(true);
    await confirmation.fill(expected);
    await rig.shot('wipe-confirm');
    await wipeButton.click();

    const done = page.getByRole('heading', { level: 2, name: 'Wipe finished' });
    await done.waitFor({ timeout: 150_000 });
    const result = page.locator('dl.wipe-result');
    const wiped = await result.locator('dt:text-is("Wiped") + dd').textContent();
    expect(wiped).toContain(DESTINATIONS.vendorA_hec);
    expect(wiped).toContain(DESTINATIONS.vendorB_bulk);
    const reFired = await result.locator('dt:text-is("Noise jobs run again") + dd').textContent();
    expect(reFired).toContain(`${DESTINATIONS.vendorA_hec}: 1 job`);
    expect(reFired).toContain(`${DESTINATIONS.vendorB_bulk}: 1 job`);
    expect(await result.locator('dt:text-is("Re-run errors") + dd').textContent()).toBe('none');
    await rig.shot('wipe-result');
    // What the SIEMs hold now is the re-fired noise only: the five events of the archive, once.
    const held = shippedToSimulators();
    expect(held.hec).toBe(5);
    expect(held.bulk).toBe(5);
  });

  it('5. the audit log shows the sign-ins, destinations, noise and the wipe', async () => {
    const { page } = rig;
    await asAdmin();
    // Alone (`-t`), the records come from the API instead of journeys 2-4.
    await ensureNoiseJob();
    const wipes = await rig.api('GET', '/api/audit?action=session.wipe');
    if (!JSON.stringify(wipes.json).includes('session.wipe')) {
      const wiped = await rig.api(
        'DELETE',
        `/api/sessions?siem=${DESTINATIONS.vendorA_hec}&siem=${DESTINATIONS.vendorB_bulk}`,
      );
      expect(wiped.status, JSON.stringify(wiped.json)).toBe(200);
    }

    await rig.goto('/audit');
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: /Newest first/ });
    /** The action column (the third) of every record shown. */
    const actions = () => table.locator('tbody tr td:nth-child(3)').allTextContents();
    await table.locator('tbody tr').first().waitFor();
    const shown = new Set(await actions());
    for (const action of [
      'auth.login',
      'destination.create',
      'noise.archive.upload',
      'noise.job.create',
      'session.wipe',
    ]) {
      expect(shown, `the audit log shows ${action}`).toContain(action);
    }
    await rig.shot('audit');

    // Filtered by a prefix: destination records only, one creation per destination (and the tests).
    await page.getByLabel('Action', { exact: true }).fill('destination.');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('destination.');
    await expect
      .poll(async () => (await actions()).every((action) => action.startsWith('destination.')))
      .toBe(true);
    const created = await table.locator('tbody tr').filter({ hasText: 'destination.create' }).all();
    const targets = await Promise.all(created.map((row) => row.locator('td:nth-child(4)').textContent()));
    expect(new Set(targets)).toEqual(new Set(Object.values(DESTINATIONS)));
    await rig.shot('audit-destinations');

    // The wipe: recorded before it started and when it ended.
    await page.getByLabel('Action', { exact: true }).fill('session.wipe');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => new Set(await actions())).toEqual(new Set(['session.wipe']));
    const outcomes = await table.locator('tbody tr td:nth-child(5)').allTextContents();
    expect(outcomes).toContain('success');
    await rig.shot('audit-wipe');
  });

  it('7. a session that ended sends the user to sign-in and back where they were', async () => {
    const { page, context } = rig;
    await asAdmin();
    await rig.goto('/destinations');
    const session = (await context.cookies()).filter((cookie) => cookie.httpOnly);
    expect(session.length).toBeGreaterThan(0);
    await context.clearCookies({ name: session[0]!.name });

    await page.goto('/destinations/new?kind=syslog_tcp');
    await page.getByRole('heading', { name: 'Sign in to Socdrill' }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/sign-in');
    expect(url.searchParams.get('next')).toBe('/destinations/new?kind=syslog_tcp');
    await rig.shot('sign-in-after-expiry');

    await rig.signIn(ADMIN.email, ADMIN.password);
    const back = new URL(page.url());
    expect(back.pathname + back.search).toBe('/destinations/new?kind=syslog_tcp');
    await page.getByRole('heading', { level: 1, name: 'New destination' }).waitFor();
    expect(await page.getByRole('radio', { name: /\(syslog_tcp;/ }).isChecked()).toBe(true);
    await rig.shot('back-after-sign-in');

    // Ended while a page is open: the next request's 401 leads to sign-in, which says why.
    await rig.goto('/destinations');
    await context.clearCookies({ name: session[0]!.name });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Noise' }).click();
    await page.getByRole('heading', { name: 'Sign in to Socdrill' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Your session ended' }).waitFor();
    const expired = new URL(page.url());
    expect(expired.searchParams.get('expired')).toBe('1');
    expect(expired.searchParams.get('next')).toBe('/noise/archives');
    await rig.shot('sign-in-session-ended');
    await rig.signIn(ADMIN.email, ADMIN.password);
    expect(new URL(page.url()).pathname).toBe('/noise/archives');
    await page.getByRole('heading', { level: 2, name: 'Archive library' }).waitFor();
    await rig.shot('back-after-session-ended');
  });

  it('6. an analyst sees no admin page and is refused one typed by hand', async () => {
    const { page } = rig;
    await asAdmin();
    // The admin creates the analyst on the Users page.
    await rig.goto('/users');
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('link', { name: 'New user' }).click();
    await page.getByRole('heading', { level: 1, name: 'New user' }).waitFor();
    await page.getByLabel('E-mail').fill(ANALYST.email);
    await page.getByLabel('Display name (optional)').fill('Ana Lyst');
    await page.getByLabel('Password', { exact: true }).fill(ANALYST.password);
    await page
      .getByRole('group', { name: 'Roles' })
      .getByRole('checkbox', { name: 'analyst', exact: true })
      .check();
    await rig.shot('user-new');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `User ${ANALYST.email} created.` })
      .waitFor();
    await page.getByRole('link', { name: ANALYST.email, exact: true }).waitFor();
    await rig.shot('users');

    await rig.goto('/');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
    await rig.signIn(ANALYST.email, ANALYST.password);
    expect(await navLinks()).toEqual(['Dashboard']);
    await rig.shot('analyst-dashboard');

    // Each admin page typed by hand, and the API behind it.
    for (const [pathname, method, api] of [
      ['/destinations', 'GET', '/api/destinations'],
      ['/noise', 'GET', '/api/noise/jobs'],
      ['/wipe', 'DELETE', `/api/sessions?siem=${DESTINATIONS.vendorA_hec}`],
      ['/users', 'GET', '/api/users'],
      ['/audit', 'GET', '/api/audit'],
    ] as const) {
      await page.goto(pathname);
      await page.getByRole('heading', { level: 1, name: 'Not allowed' }).waitFor();
      expect(await navLinks()).toEqual(['Dashboard']);
      await rig.shot(`analyst-not-allowed${pathname.replaceAll('/', '-')}`);
      const refused = await rig.api(method, api);
      expect(refused.status, `${method} ${api} for an analyst`).toBe(403);
    }
  });
});
