import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { panelCommands, panelPage, panelScript, parseWebviewMessage } from '../src/panelHtml';
import { diffSummary, isUnifiedDiff } from '../src/diff';
import { renderPanel, shortRef, type PanelModel } from '../src/panelView';
import { PendingStore } from '../src/pending';
import { decodePending } from '../src/questions';
import type { WorkflowDetail, WorkflowSummary } from '../src/lspext.gen';

const summary: WorkflowSummary = {
  id: 'wf1', name: 'fix-<login>', task: 'Fix the login', stage: 'pulsing', status: 'Active', branch: 'autarch/fix-login',
  pulsesDone: 1, pulses: 2, tokens: 12345, cost: 0.0123, updatedAt: '2025-01-01T00:00:00Z',
};

const detail: WorkflowDetail = {
  summary,
  stages: [{ stage: 'scoping', state: 'done' }, { stage: 'pulsing', state: 'current' }, { stage: 'review', state: 'todo' }],
  scope: { title: 'Scope', markdown: '# Fix\n<script>x</script>', status: 'Approved' },
  research: null,
  plan: { title: 'Plan', markdown: '- one\n- two', status: 'Pending', feedback: 'smaller' },
  pulses: [
    { id: 'p1', title: 'First', status: 'Succeeded', commit: 'abcdef1234567', files: 2, additions: 10, deletions: 3, recovery: false, unresolved: [] },
    { id: 'p2', title: 'Second', status: 'Failed', files: 1, additions: 1, deletions: 0, recovery: true, unresolved: ['flaky <test>'], failureReason: 'iteration limit' },
  ],
  pending: [],
  activity: [{ time: '2025-01-01T10:11:12Z', stage: 'pulsing', tool: 'read_file', reason: 'Read <main>', failed: false }],
  messages: [{ role: 'assistant', stage: 'scoping', text: 'Hello **there**' }],
  review: {
    id: 'r1', status: 'Completed', recommendation: 'manual_review', summary: 'Looks fine', base: 'main', head: 'h',
    comments: [{ id: 'c1', type: 'line', filePath: 'a.go', startLine: 3, endLine: 4, severity: 'High', category: 'bug', description: 'Bad', suggestion: 'fix()', preExisting: false }],
  },
};

function model(over: Partial<PanelModel> = {}): PanelModel {
  return {
    serverState: 'running', workflows: [summary], selected: 'wf1', detail, pending: [], stored: [], activity: detail.activity,
    messages: detail.messages, review: detail.review ?? undefined, ...over,
  };
}

test('renderPanel exposes the stable ids and classes', () => {
  const s = renderPanel(model());
  assert.match(s.workflows, /<ul id="workflows"><li class="workflow-item discussion" data-action="select" data-id=""/);
  assert.match(s.workflows, /class="workflow-item selected" data-action="select" data-id="wf1" data-status="Active" data-stage="pulsing"/);
  assert.match(s.workflows, /fix-&lt;login&gt;/);
  assert.match(s.workflow, /<ol id="stage-timeline"><li class="stage stage-done" data-stage="scoping" data-state="done">/);
  assert.match(s.workflow, /data-state="current"/);
  assert.match(s.workflow, /<details id="scope" class="card" data-status="Approved">/);
  assert.match(s.workflow, /<details id="plan" class="card" data-status="Pending" open>/);
  assert.match(s.workflow, /&lt;script&gt;x&lt;\/script&gt;/);
  assert.doesNotMatch(s.workflow, /<script>/);
  assert.match(s.workflow, /<li class="pulse-item" data-id="p1" data-status="Succeeded">/);
  assert.match(s.workflow, /<code class="pulse-commit">abcdef1234<\/code>/);
  assert.match(s.workflow, /<span class="add">\+10<\/span> <span class="del">−3<\/span>/);
  assert.match(s.workflow, /data-status="Failed">[\s\S]*pulse-recovery[\s\S]*<ul class="pulse-unresolved"><li>flaky &lt;test&gt;<\/li>/);
  assert.match(s.workflow, /<ul id="review-comments"><li class="comment severity-high" data-id="c1" data-severity="high" data-type="line"/);
  assert.match(s.workflow, /<div class="comment-label">High · bug · new<\/div>/);
  assert.match(s.workflow, /data-recommendation="manual_review"/);
  assert.match(s.workflow, /<span class="usage-tokens">12,345 tokens<\/span> · <span class="usage-cost">\$0\.0123<\/span>/);
  assert.match(s.workflow, /class="wf-stop secondary"/);
  assert.match(s.activity, /<ul id="activity"><li class="activity-item" data-tool="read_file" data-failed="false" data-stage="pulsing">/);
  assert.match(s.activity, /Read &lt;main&gt;/);
  const nested = renderPanel(model({ activity: [{ time: '', stage: 'pulsing', tool: 'grep', reason: 'sub', failed: false, subagent: 'explore' }] }));
  assert.match(nested.activity, /<li class="activity-item nested" [^>]*data-subagent="explore"><span class="activity-subagent">↳ explore<\/span> <span class="activity-tool">grep/);
  assert.match(s.conversation, /<div class="message role-assistant" data-role="assistant" data-stage="scoping">/);
  assert.match(s.conversation, /Hello <strong>there<\/strong>/);
  assert.match(s.server, /data-testid="server-state"/);
  assert.equal(s.pending, '');
});

test('renderPanel renders live questions and approvals with their buttons', () => {
  const store = new PendingStore();
  store.addApproval({ kind: 'plan', title: 'Approve the plan', reason: 'Ready <now>', detail: '## Plan', allowAlways: true, workflowId: 'wf1' });
  store.addQuestions({
    title: 'Scoping asks',
    questions: [
      { type: 'single_select', prompt: 'Which?', options: ['a', 'b'] },
      { type: 'multi_select', prompt: 'Which ones?', options: ['x', 'y'] },
      { type: 'ranked', prompt: 'Order', options: ['1', '2'] },
      { type: 'free_text', prompt: 'Why?' },
    ],
  });
  const lone = store.addQuestions({ questions: [{ type: 'single_select', prompt: 'Pick', options: ['only'] }] });
  store.setDraft(lone.id, 0, { values: ['only'] });
  const p = renderPanel(model({ pending: store.list() })).pending;
  assert.match(p, /<div class="pending-item pending-approval" data-id="a-1" data-kind="plan" data-workflow="wf1">/);
  assert.match(p, /<div class="pending-reason">Why: Ready &lt;now&gt;<\/div>/);
  assert.match(p, /<div class="pending-detail markdown"><h2>Plan<\/h2><\/div>/);
  assert.match(p, /class="pending-approve" data-action="decide" data-decision="approve" data-pending="a-1"/);
  assert.match(p, /class="pending-reject secondary" data-action="decide" data-decision="reject"/);
  assert.match(p, /class="pending-always secondary"/);
  assert.doesNotMatch(p, /pending-abort/, 'abort all only when offered');
  const tool = new PendingStore();
  tool.addApproval({ kind: 'tool', title: 'Allow shell?', allowAlways: true, allowAbort: true });
  assert.match(renderPanel(model({ pending: tool.list() })).pending, /<button class="pending-abort secondary" data-action="decide" data-decision="abort" data-pending="a-1"[^>]*>Abort All<\/button>/);
  assert.match(p, /class="pending-item pending-questions" data-id="q-2" data-kind="questions" data-workflow="">/);
  assert.match(p, /<button class="pending-option" data-action="option" data-pending="q-2" data-q="0" data-value="a">a<\/button>/);
  assert.match(p, /<input type="checkbox" class="pending-check" value="x">/);
  assert.match(p, /<li class="ranked-option" data-value="1">/);
  assert.match(p, /<textarea class="pending-text" data-keep="t-q-2-3"/);
  assert.match(p, /class="pending-submit" data-action="submit" data-pending="q-2"/);
  assert.match(p, /class="pending-option selected" data-action="option" data-pending="q-3" data-q="0" data-value="only" data-submit="1"/);
  assert.doesNotMatch(p, /data-pending="q-3">Send answers/);
  assert.match(p, /Waiting for you <span class="count">3<\/span>/);
});

test('renderPanel shows stored items of a waiting workflow', () => {
  const stored = [
    { workflowId: 'wf1', item: decodePending({ id: 'ask-1', kind: 'reply', stage: 'scoping', payload: '{"message":"Which **db**?"}' }) },
    { workflowId: 'wf1', item: decodePending({ id: 'ask-2', kind: 'scope', stage: 'scoping', payload: '{"title":"Approve the scope"}' }) },
    { workflowId: 'wf1', item: decodePending({ id: 'ask-3', kind: 'tool', stage: 'pulsing', payload: '{"title":"Allow shell?"}' }) },
  ];
  const p = renderPanel(model({ stored })).pending;
  assert.match(p, /data-id="ask-1" data-kind="questions" data-workflow="wf1" data-stored="1"/);
  assert.match(p, /Which <strong>db<\/strong>\?/);
  // A stored card is decided from the panel (autarch.answer with a verdict)…
  assert.match(p, /data-id="ask-2" data-kind="scope" data-workflow="wf1" data-stored="1"/);
  assert.match(p, /class="pending-approve" data-action="decide" data-decision="approve" data-pending="ask-2"/);
  // …other stored approvals are asked again when the workflow resumes.
  assert.match(p, /data-id="ask-3" data-kind="tool"[^>]*data-stored="1"/);
  assert.match(p, /class="pending-resume" data-action="workflow" data-op="resume" data-id="wf1"/);
  assert.doesNotMatch(p, /data-decision="approve" data-pending="ask-3"/);
});

test('renderPanel for the discussion shows its messages and the branch review', () => {
  const s = renderPanel(model({ selected: '', detail: undefined, messages: [{ role: 'user', stage: 'discussion', text: 'hi' }] }));
  assert.match(s.workflows, /class="workflow-item discussion selected"/);
  assert.match(s.workflow, /<section id="review"/);
  assert.match(s.conversation, /data-role="user"/);
  const empty = renderPanel(model({ selected: '', detail: undefined, messages: [], review: undefined, activity: [] }));
  assert.match(empty.conversation, /Ask anything about the codebase/);
  assert.equal(empty.workflow, '');
  assert.match(renderPanel(model({ detail: undefined })).workflow, /Loading/);
  assert.match(renderPanel(model({ detailError: 'boom <x>' })).workflow, /boom &lt;x&gt;/);
});

test('panelPage has a nonce-only CSP, the composer and a script that parses', () => {
  const html = panelPage('N0nce', renderPanel(model()), 'Send goes to the discussion');
  assert.match(html, /content="default-src 'none'; style-src 'nonce-N0nce'; script-src 'nonce-N0nce';"/);
  assert.match(html, /<textarea id="message-box"/);
  assert.match(html, /<button id="send">Send<\/button>/);
  assert.match(html, /<div class="section" data-section="activity"><h3>Activity<\/h3><ul id="activity">/);
  assert.doesNotMatch(html, / style="/, 'no inline style attributes (the CSP forbids them)');
  assert.doesNotThrow(() => new Function(panelScript));
});

test('parseWebviewMessage accepts our messages only', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'select', workflowId: 'wf1' }), { type: 'select', workflowId: 'wf1' });
  assert.deepEqual(parseWebviewMessage({ type: 'answer', pendingId: 'q-1', answers: [{ values: ['a'] }], stored: true, workflowId: 'w' }), {
    type: 'answer', pendingId: 'q-1', workflowId: 'w', stored: true, answers: [{ values: ['a'] }],
  });
  assert.equal(parseWebviewMessage({ type: 'answer', pendingId: 'q-1', answers: [{ values: [1] }] }), undefined);
  assert.equal(parseWebviewMessage({ type: 'workflow', op: 'delete', workflowId: 'w' }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'workflow', op: 'diff', workflowId: 'w', pulseId: '' }), { type: 'workflow', op: 'diff', workflowId: 'w', pulseId: undefined });
  assert.deepEqual(parseWebviewMessage({ type: 'open', file: 'a.go', start: '3', end: 'x' }), { type: 'open', file: 'a.go', start: 3, end: 0 });
  assert.equal(parseWebviewMessage('nope'), undefined);
  assert.equal(parseWebviewMessage({ type: 'eval' }), undefined);
});

test('shortRef shortens commit ids only', () => {
  assert.equal(shortRef('8132894b8f10702f9738f3fa246a1e5b2a000000'), '8132894b8f');
  assert.equal(shortRef('main'), 'main');
  assert.equal(shortRef('feature/abcdefabcdefabcdef'), 'feature/abcdefabcdefabcdef');
});

test('an edit approval shows its change as a diff, not as escaped JSON or Markdown', () => {
  const store = new PendingStore();
  const diff = '--- a/calc.go\n+++ b/calc.go\n@@ -3,2 +3,4 @@\n // Add adds.\n func Add(a, b int) int { return a + b }\n+\n+func Mul(a, b int) int { return a < b }\n';
  store.addApproval({ kind: 'tool', title: 'Allow edit_file?', reason: 'Add Mul', detail: diff, allowAlways: true, workflowId: 'wf1' });
  const p = renderPanel(model({ pending: store.list() })).pending;
  assert.match(p, /<pre class="diff" data-testid="approval-diff"><span class="diff-file">--- a\/calc.go<\/span>/);
  assert.match(p, /<span class="diff-hunk">@@ -3,2 \+3,4 @@<\/span>/);
  assert.match(p, /<span class="diff-add">\+func Mul\(a, b int\) int \{ return a &lt; b \}<\/span>/);
  assert.match(p, /<span class="diff-ctx"> \/\/ Add adds.<\/span>/);
  assert.doesNotMatch(p, /<hr>|<h[1-6]>[^W]|class="pending-detail markdown"/);
  assert.equal(diffSummary(diff), 'calc.go +2 −0');
  assert.equal(isUnifiedDiff('{"path": "calc.go", "oldString": "x"}'), false);
});

test('renderPanel shows the lanes of parallel pulses: where each runs, what it waits on, its merge order', () => {
  const parallel: WorkflowDetail = {
    ...detail,
    parallel: 2,
    pulses: [
      { id: 'p1', title: 'First', status: 'Succeeded', files: 1, additions: 1, deletions: 0, recovery: false, unresolved: [], mergeOrder: 1 },
      { id: 'p2', title: 'Second', status: 'Running', files: 0, additions: 0, deletions: 0, recovery: false, unresolved: [], lane: 1, worker: 'h/1', mergeOrder: 2 },
      { id: 'p3', title: 'Third', status: 'Running', files: 0, additions: 0, deletions: 0, recovery: false, unresolved: [], lane: 2, waitingOn: ['p2'], mergeOrder: 3 },
      { id: 'p<4>', title: 'Fourth', status: 'Proposed', files: 0, additions: 0, deletions: 0, recovery: false, unresolved: [], waitingOn: ['p2', 'p3'], mergeOrder: 4 },
    ],
  };
  const s = renderPanel(model({ detail: parallel }));
  assert.match(s.workflow, /<ol id="lanes" data-parallel="2"><li class="lane" data-lane="1">lane 1: <span class="lane-pulse">p2<\/span><\/li><li class="lane" data-lane="2">lane 2: <span class="lane-pulse">p3<\/span><\/li><\/ol>/);
  assert.match(s.workflow, /data-id="p3"[\s\S]*?<div class="pulse-lane" data-lane="2">merge #3 · lane 2 · waiting on p2<\/div>/);
  assert.match(s.workflow, /data-id="p&lt;4&gt;"[\s\S]*?<div class="pulse-lane">merge #4 · waiting on p2, p3<\/div>/);
  assert.doesNotMatch(renderPanel(model()).workflow, /id="lanes"|pulse-lane/);
});

test('renderPanel shows a dry run\'s plan: its actions by stage, escaped, and the files that would change', () => {
  const plan = {
    entries: [
      { stage: 'preflight', tool: 'shell', action: 'would run `go mod download` (dangerous)', reason: 'Fetch <deps>' },
      { stage: 'pulse pulse-1', tool: 'edit_file', action: 'would edit calc.go: replace 2 lines with 11', reason: 'Saturate', path: 'calc.go', change: 'replace 2 lines with 11' },
      { stage: 'pulse pulse-1', tool: 'write_file', action: 'would write <x>.go (3 lines, new file)', path: '<x>.go', change: 'new file (3 lines)' },
    ],
    files: [{ path: 'calc.go', changes: ['replace 2 lines with 11'] }, { path: '<x>.go', changes: ['new file (3 lines)'] }],
  };
  const running = renderPanel(model({ dryRuns: [{ workflowId: 'd1', plan }] })).dryrun;
  assert.match(running, /<section id="dry-run-plans"><h3>Dry run plan<\/h3><div class="dryrun" data-workflow="d1" data-ended="false">/);
  assert.match(running, /3 actions planned, none executed/);
  assert.match(running, /Running: reads run, writes and commands are recorded here, not executed\./);
  assert.match(running, /<div class="dryrun-stage" data-stage="preflight"><h4>preflight<\/h4><ol class="dryrun-entries"><li class="dryrun-entry" value="1" data-tool="shell"><span class="dryrun-action">would run `go mod download` \(dangerous\)<\/span> <span class="dryrun-reason">— Fetch &lt;deps&gt;<\/span><\/li><\/ol><\/div>/);
  assert.match(running, /data-stage="pulse pulse-1"><h4>pulse pulse-1<\/h4><ol class="dryrun-entries"><li class="dryrun-entry" value="2" data-tool="edit_file" data-path="calc.go">[\s\S]*value="3" data-tool="write_file" data-path="&lt;x&gt;.go"><span class="dryrun-action">would write &lt;x&gt;.go/);
  assert.match(running, /<h4>Files that would change<\/h4><ul class="dryrun-files"><li class="dryrun-file" data-path="calc.go"><code>calc.go<\/code>: replace 2 lines with 11<\/li><li class="dryrun-file" data-path="&lt;x&gt;.go">/);
  assert.doesNotMatch(running, /<x>/);
  const ended = renderPanel(model({ dryRuns: [{ workflowId: 'd2', plan: { entries: [], files: [], ended: true, outcome: 'the dry run of x ended in scoping: what it asked was dismissed' } }] })).dryrun;
  assert.match(ended, /data-ended="true"/);
  assert.match(ended, /<div class="dryrun-outcome">the dry run of x ended in scoping: what it asked was dismissed<\/div>/);
  assert.match(ended, /No write or command planned\./);
  assert.doesNotMatch(ended, /Files that would change/);
  assert.equal(renderPanel(model()).dryrun, '', 'no dry run, no section');
  assert.match(panelPage('n', renderPanel(model({ dryRuns: [{ workflowId: 'd1', plan }] })), ''), /<div class="section" data-section="dryrun"><section id="dry-run-plans">/);
});

test('every button of the side panel does something: a data-action the script handles, a command the host allows', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  const status = { version: '1', pid: 1, workspace: ['/w'], message: 'ok', model: { configured: false, name: '', baseUrl: '', hasApiKey: false, source: '' } };
  const pages = [
    renderPanel(model()),
    renderPanel(model({ serverState: 'restricted', status: undefined })),
    renderPanel(model({ serverState: 'running', status: status as never, selected: '' })),
    renderPanel(model({ serverState: 'stopped', error: 'it crashed' })),
  ];
  const handled = new Set([...panelScript.matchAll(/a === '([a-z]+)'/g)].map((m) => m[1]));
  let commands = 0;
  for (const sections of pages) {
    for (const [id, html] of Object.entries(sections)) {
      for (const [tag] of html.matchAll(/<button[^>]*>/g)) {
        const action = /data-action="([^"]*)"/.exec(tag)?.[1];
        assert.ok(action && handled.has(action), `a button in ${id} has no data-action the page's script handles: ${tag}`);
        if (action !== 'command') continue;
        const command = /data-command="([^"]*)"/.exec(tag)?.[1] ?? '';
        assert.ok(panelCommands.has(command), `${id}: ${command} is not allowed for the panel's buttons: ${tag}`);
        assert.ok(contributed.has(command) || command.startsWith('workbench.'), `${id}: ${command} is no command: ${tag}`);
        commands++;
      }
    }
  }
  assert.ok(commands >= 6, `only ${commands} command buttons were checked`);
});

test("a review comment's location opens the copy it is anchored to (issue 31.3: not the user's file at a wrong line)", () => {
  const onBranch = { id: 'c2', type: 'line', filePath: 'calc.go', startLine: 8, endLine: 8, severity: 'Medium', category: 'bug', description: 'x', preExisting: false, uri: 'autarch-git:/calc.go?commit=abc123' };
  const review = { ...detail.review!, comments: [onBranch] };
  const s = renderPanel(model({ review, detail: { ...detail, review } }));
  assert.match(s.workflow, /<a class="comment-location" href="#" data-action="open" data-file="calc.go" data-start="8" data-end="8" data-uri="autarch-git:\/calc.go\?commit=abc123">calc.go:8<\/a>/);
  // The page's script posts the anchor with the click.
  assert.match(panelScript, /type: 'open', file: el\.dataset\.file, start: Number\(el\.dataset\.start\), end: Number\(el\.dataset\.end\), uri: el\.dataset\.uri/);
  assert.deepEqual(parseWebviewMessage({ type: 'open', file: 'calc.go', start: 8, end: 8, uri: 'autarch-git:/calc.go?commit=abc123' }), {
    type: 'open', file: 'calc.go', start: 8, end: 8, uri: 'autarch-git:/calc.go?commit=abc123',
  });
  // Only a reviewed copy is taken from the page: any other URI opens the workspace file by its path.
  for (const uri of ['file:///etc/passwd', 'command:workbench.action.terminal.new', 'https://example.com/']) {
    assert.deepEqual(parseWebviewMessage({ type: 'open', file: 'calc.go', start: 8, end: 8, uri }), { type: 'open', file: 'calc.go', start: 8, end: 8 });
  }
  // A comment anchored to the user's file (applied) has no reviewed copy to name.
  const applied = renderPanel(model());
  assert.doesNotMatch(applied.workflow, /data-uri=/);
});
