// End-to-end test of `autarch acp` with a client nobody here wrote: the
// official ACP TypeScript SDK (@agentclientprotocol/sdk, pinned in the root
// package.json). Against the scripted model (cmd/autarch-scripted) in a temp
// git repository it
//   1. initializes, opens a session and prompts in discuss mode: message
//      chunks and a tool_call titled with the call's reason arrive;
//   2. switches a second session to workflow mode and runs a quick workflow,
//      approving the scope card through session/request_permission;
//   3. kills `autarch acp` (SIGKILL), starts it again and session/loads the
//      workflow and the discussion: their history is replayed;
//   4. forks the discussion (session/fork), closes it during a turn
//      (session/close) and resumes it without a replay (session/resume);
// and validates every message autarch sends against the SDK's JSON schema
// (schema/v1/schema.json). Bad input is answered with clear JSON-RPC errors.
//
// Usage: AUTARCH_BIN=bin/autarch AUTARCH_SCRIPTED_BIN=bin/autarch-scripted node e2e/acp/run.mjs
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
// session/fork is an unstable method: its name comes from the unstable entry.
import { methods as unstableMethods } from "@agentclientprotocol/sdk/unstable";
import Ajv2020 from "ajv/dist/2020.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const bin = resolve(root, process.env.AUTARCH_BIN ?? "bin/autarch");
const scriptedBin = resolve(root, process.env.AUTARCH_SCRIPTED_BIN ?? "bin/autarch-scripted");

// Every check that fails is collected; the run fails at the end.
const failures = [];
function check(ok, what, detail) {
  if (!ok) failures.push(detail === undefined ? what : `${what}: ${JSON.stringify(detail).slice(0, 600)}`);
}

// --- the schema every message autarch sends is validated against --------
const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema's numeric formats (Rust's integer types) are checked, not ignored.
const ranges = { int16: [-(2 ** 15), 2 ** 15 - 1], uint16: [0, 2 ** 16 - 1], int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], uint64: [0, Number.MAX_SAFE_INTEGER] };
for (const [name, [lo, hi]] of Object.entries(ranges)) ajv.addFormat(name, { type: "number", validate: (n) => Number.isInteger(n) && n >= lo && n <= hi });
ajv.addFormat("uri", { type: "string", validate: (u) => URL.canParse(u) });
ajv.addFormat("double", { type: "number", validate: (n) => Number.isFinite(n) });
ajv.addSchema(schema, "acp.json");
// session/fork is unstable: its messages are defined in the unstable schema.
ajv.addSchema(JSON.parse(readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json"), "utf8")), "acp-unstable.json");
const unstable = new Set(["ForkSessionResponse"]);
const def = (name) => {
  const v = ajv.getSchema(`${unstable.has(name) ? "acp-unstable.json" : "acp.json"}#/$defs/${name}`);
  if (!v) throw new Error(`schema has no $defs/${name}`);
  return v;
};
const responseDefs = {
  initialize: "InitializeResponse",
  authenticate: "AuthenticateResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/prompt": "PromptResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/list": "ListSessionsResponse",
  "session/close": "CloseSessionResponse",
  "session/resume": "ResumeSessionResponse",
  "session/fork": "ForkSessionResponse",
};
const requestDefs = { "session/request_permission": "RequestPermissionRequest", "fs/read_text_file": "ReadTextFileRequest" };
let validated = 0;

function validate(msg, sentMethods) {
  const run = (name, value) => {
    const v = def(name);
    validated++;
    if (!v(value)) failures.push(`autarch sent a message that is not a valid ${name}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(msg).slice(0, 400)}`);
  };
  if (msg.method !== undefined && msg.id !== undefined) {
    run("AgentRequest", msg);
    if (requestDefs[msg.method]) run(requestDefs[msg.method], msg.params);
  } else if (msg.method !== undefined) {
    run("AgentNotification", msg);
    if (msg.method === "session/update") run("SessionNotification", msg.params);
  } else {
    run("AgentResponse", msg);
    const method = sentMethods.get(String(msg.id));
    if (msg.result !== undefined && responseDefs[method]) run(responseDefs[method], msg.result);
  }
}

// lines splits a byte stream into JSON messages.
function lines(onMessage) {
  let buf = "";
  const dec = new TextDecoder();
  return (chunk) => {
    buf += dec.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      try {
        onMessage(JSON.parse(line));
      } catch (e) {
        failures.push(`autarch wrote a line that is not JSON: ${line.slice(0, 200)} (${e})`);
      }
    }
  };
}

// --- the project, the model and the agent process ------------------------
const work = mkdtempSync(join(tmpdir(), "autarch-acp-e2e-"));
const project = join(work, "project");
const home = join(work, "home");
mkdirSync(project, { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(join(project, "main.go"), "package main\n\nfunc main() {}\n");
const git = (...args) => execFileSync("git", ["-C", project, ...args], { stdio: "pipe" });
git("init", "-q", "-b", "main");
git("add", "-A");
git("-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "initial");

// A second repository, for the job.
const calc = join(work, "calc");
mkdirSync(calc, { recursive: true });
writeFileSync(join(calc, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
writeFileSync(join(calc, "calc.go"), "package calc\n\n// Add adds two numbers.\nfunc Add(a, b int) int { return a - b }\n");
writeFileSync(
  join(calc, "calc_test.go"),
  'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)\n\t}\n}\n',
);
for (const args of [["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "initial"]]) {
  execFileSync("git", ["-C", calc, ...args], { stdio: "pipe" });
}

// The Go build cache is the user's own, as a person's autarch has it (the
// sandbox reads it read-only under the repository's): a new home's empty one
// made the job's go test compile the standard library, 30 s of CPU, which
// at load 14 outran run_tests' 1-minute default (CI 26, CI 31).
const userGoCache = execFileSync("go", ["env", "GOCACHE"], { encoding: "utf8" }).trim();
const env = {
  ...process.env,
  GOCACHE: userGoCache,
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local/share"),
  XDG_STATE_HOME: join(home, ".local/state"),
  XDG_CACHE_HOME: join(home, ".cache"),
};
for (const k of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AUTARCH_MODEL"]) delete env[k];

const model = spawn(scriptedBin, ["--script", join(here, "script.txt")], { env, stdio: ["ignore", "pipe", "pipe"] });
let modelLog = "";
model.stderr.on("data", (d) => (modelLog += d));
const modelURL = await new Promise((ok, fail) => {
  let out = "";
  model.stdout.on("data", (d) => {
    out += d;
    if (out.includes("\n")) ok(out.split("\n")[0].trim());
  });
  model.on("exit", (code) => fail(new Error(`autarch-scripted exited ${code}: ${modelLog}`)));
});

let agentLog = "";
function startAgent() {
  const child = spawn(bin, ["acp", "--model", "scripted", "--base-url", modelURL, "--log", ""], { cwd: project, env, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr.on("data", (d) => (agentLog += d));
  const sentMethods = new Map();
  // What autarch writes is validated, then handed to the SDK.
  const tap = lines((msg) => validate(msg, sentMethods));
  let open = true;
  const readable = new ReadableStream({
    start(controller) {
      child.stdout.on("data", (chunk) => {
        tap(chunk);
        if (open) controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on("end", () => {
        if (open) controller.close();
        open = false;
      });
    },
    cancel() {
      open = false;
    },
  });
  // What the SDK writes is noted (id → method) to validate the responses.
  const note = lines((msg) => msg.id !== undefined && msg.method && sentMethods.set(String(msg.id), msg.method));
  const sink = Writable.toWeb(child.stdin);
  const writer = sink.getWriter();
  const writable = new WritableStream({
    async write(chunk) {
      note(chunk);
      await writer.write(chunk);
    },
    async close() {
      await writer.close();
    },
  });
  return { child, stream: acp.ndJsonStream(writable, readable) };
}

// --- the client ----------------------------------------------------------
const updates = []; // session/update params in arrival order
const permissions = []; // session/request_permission params
function makeClient() {
  return acp
    .client({ name: "autarch-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const approve = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: approve.optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: readFileSync(params.path, "utf8") }));
}

const initParams = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
  clientInfo: { name: "autarch-e2e", version: "1" },
};
const of = (sessionId, kind) => updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind).map((u) => u.update);
const text = (sessionId, kind) =>
  of(sessionId, kind)
    .map((u) => u.content?.text ?? "")
    .join("");

async function expectError(promise, what, code, words) {
  try {
    await promise;
    failures.push(`${what}: expected a JSON-RPC error, got a result`);
  } catch (e) {
    check(e.code === code, `${what}: error code`, { code: e.code, message: e.message });
    check(String(e.message + JSON.stringify(e.data ?? "")).includes(words), `${what}: the error says "${words}"`, { message: e.message, data: e.data });
  }
}

// A hang fails the run; the bound is generous, since CI runs every
// package's tests at once on 2 cores (loads of 15 to 36), where the job's
// go test alone may take minutes (its run_tests has 5).
const timer = setTimeout(() => {
  console.error("acp e2e: timed out after 15 minutes");
  finish(1);
}, 15 * 60_000);

let first = startAgent();
let discussID;
let workflowSession;
let workflowID;
let jobSession;
let killedSession;
let killedID;
await guard("first connection", () => makeClient().connectWith(first.stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, initParams);
  check(init.protocolVersion === 1, "protocol version 1", init);
  check(init.agentCapabilities?.loadSession === true, "loadSession capability", init.agentCapabilities);
  check(init.agentInfo?.name === "autarch", "agentInfo names autarch", init.agentInfo);
  check(Array.isArray(init.authMethods) && init.authMethods.length === 0, "a local model needs no authentication", init.authMethods);
  const sc = init.agentCapabilities?.sessionCapabilities ?? {};
  check(sc.close && sc.resume && sc.fork, "session/close, session/resume and session/fork are offered", sc);

  // 1. discuss mode.
  // The editor's MCP server (stdio) joins the agents' tools.
  const everything = { name: "everything", command: join(root, "node_modules/.bin/mcp-server-everything"), args: [], env: [] };
  const s1 = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [everything] });
  discussID = s1.sessionId;
  check(s1.modes?.currentModeId === "discuss", "a new session is in discuss mode", s1.modes);
  check(
    ["discuss", "workflow", "job", "job-genius"].every((m) => s1.modes?.availableModes?.some((x) => x.id === m)),
    "modes discuss, workflow, job and job-genius are offered",
    s1.modes,
  );
  const r1 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: discussID, prompt: [{ type: "text", text: "What does main.go do?" }] });
  check(r1.stopReason === "end_turn", "the discussion turn ends", r1);
  const answer = text(discussID, "agent_message_chunk");
  check(answer.split("main.go defines an empty main function.").length === 2, "the answer arrives once, as agent message chunks", of(discussID, "agent_message_chunk"));
  check(
    of(discussID, "agent_message_chunk").filter((u) => "main.go defines an empty main function.".includes(u.content.text) && u.content.text.trim()).length >= 2,
    "the answer is streamed in pieces as the model sends it",
    of(discussID, "agent_message_chunk"),
  );
  const read = of(discussID, "tool_call").find((u) => u.title === "Read main.go to see what the program does");
  check(read !== undefined, "a tool_call is titled with the call's reason", of(discussID, "tool_call"));
  check(read?.kind === "read", "read_file is a read", read);
  check(
    of(discussID, "tool_call_update").some((u) => u.toolCallId === read?.toolCallId && u.status === "completed"),
    "the read completes",
    of(discussID, "tool_call_update"),
  );

  // Bad input: clear JSON-RPC errors.
  await expectError(
    ctx.request(acp.methods.agent.session.prompt, { sessionId: "acp-ffff", prompt: [{ type: "text", text: "hi" }] }),
    "prompt to an unknown session",
    -32602,
    "unknown session",
  );
  await expectError(ctx.request(acp.methods.agent.session.setMode, { sessionId: discussID, modeId: "yolo" }), "an unknown mode", -32602, "discuss, workflow, job or job-genius");
  await expectError(ctx.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }), "a relative cwd", -32602, "absolute");

  // 2. workflow mode: a quick workflow, its scope card approved.
  const s2 = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  workflowSession = s2.sessionId;
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: workflowSession, modeId: "workflow" });
  check(of(workflowSession, "current_mode_update").some((u) => u.currentModeId === "workflow"), "the mode change is reported", updates.slice(-3));
  const r2 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: workflowSession, prompt: [{ type: "text", text: "Add a Sub function to main.go" }] });
  check(r2.stopReason === "end_turn", "the turn waiting for answers ends", r2);
  const choice = permissions.find((p) => p.sessionId === workflowSession && p.toolCall.title === "Which file should hold Sub?");
  check(
    choice?.options?.map((o) => o.name).join(",") === "main.go,sub.go",
    "a single-choice question is asked as permission options",
    permissions.map((p) => p.toolCall),
  );
  const asked = text(workflowSession, "agent_message_chunk");
  check(
    asked.includes("1. What should Sub return for a negative difference?") && asked.includes("2. Which checks should pass? (pick any") && asked.includes("one line per question"),
    "other questions end the turn as a message",
    asked,
  );
  // The next prompt answers them (a choice by its number) and the workflow goes on.
  const r3 = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: workflowSession,
    prompt: [{ type: "text", text: "1. The negative number\n2. vet, 2" }],
  });
  check(r3.stopReason === "end_turn", "the workflow turn ends", r3);
  const said = "First I read main.go, then I add Sub below main.";
  const pieces = of(workflowSession, "agent_message_chunk").filter((u) => u.content?.text && u.content.text.length < said.length && said.includes(u.content.text));
  check(
    pieces.length >= 3 && text(workflowSession, "agent_message_chunk").split(said).length === 2,
    "the pulse agent's text streams as several agent message chunks, once",
    text(workflowSession, "agent_message_chunk"),
  );
  check(r3.usage?.totalTokens === 129, "the turn's usage is reported", r3.usage);
  check(
    of(workflowSession, "usage_update").some((u) => u.used === 129 && u.size === 128000 && u.cost?.currency === "USD"),
    "the context used is reported",
    of(workflowSession, "usage_update"),
  );
  check(of(workflowSession, "session_info_update").some((u) => u.title === "Add a Sub function to main.go"), "the session is titled with its first prompt", of(workflowSession, "session_info_update"));
  await expectError(
    ctx.request(acp.methods.agent.session.setMode, { sessionId: workflowSession, modeId: "discuss" }),
    "changing the mode of a session that drives a workflow",
    -32600,
    "start a new session",
  );
  const started = text(workflowSession, "agent_message_chunk").match(/\(id ([^,\s]+),/);
  workflowID = started?.[1];
  check(workflowID !== undefined, "the workflow's id is told", text(workflowSession, "agent_message_chunk"));
  const scope = permissions.find((p) => p.sessionId === workflowSession && JSON.stringify(p.toolCall).includes("Add Sub"));
  check(scope !== undefined, "the scope card is asked through session/request_permission", permissions);
  check(
    scope?.options?.some((o) => o.optionId === "approve" && o.kind === "allow_once") && scope?.options?.some((o) => o.kind === "reject_once"),
    "the card offers approve and request changes",
    scope?.options,
  );
  const edit = of(workflowSession, "tool_call").find((u) => u.title === "Add Sub");
  check(edit?.kind === "edit", "edit_file is an edit titled with its reason", of(workflowSession, "tool_call"));
  check(
    edit?.content?.some((c) => c.type === "diff" && c.newText.includes("func Sub") && c.path.endsWith("main.go")),
    "the edit carries its diff",
    edit?.content,
  );
  check(edit?.locations?.some((l) => l.path.endsWith("main.go")), "the edit names its file", edit?.locations);
  const echo = of(workflowSession, "tool_call").find((u) => u.title === "Echo through the editor's MCP server");
  check(echo !== undefined, "the MCP server's tool was called", of(workflowSession, "tool_call"));
  check(
    permissions.some((p) => p.toolCall.toolCallId === echo?.toolCallId && p.toolCall.title === undefined && p.options.some((o) => o.kind === "allow_always")),
    "the sensitive call is confirmed on its own tool call (keeping its reason as title)",
    permissions.map((p) => p.toolCall),
  );
  check(
    of(workflowSession, "tool_call_update").some((u) => u.toolCallId === echo?.toolCallId && u.status === "completed" && JSON.stringify(u.content ?? []).includes("Echo: hi")),
    "the MCP tool's result arrives",
    of(workflowSession, "tool_call_update").filter((u) => u.toolCallId === echo?.toolCallId),
  );
  const plans = of(workflowSession, "plan");
  check(plans.length > 0, "the plan is reported");
  const lastPlan = plans.at(-1)?.entries ?? [];
  check(
    lastPlan.some((e) => e.content.startsWith("Pulse") && e.status === "completed"),
    "the plan's pulse is completed",
    lastPlan,
  );
  check(
    text(workflowSession, "agent_message_chunk").includes("completed") && text(workflowSession, "agent_message_chunk").includes("Its review recommends approve — Sub subtracts."),
    "the workflow's end and its review's recommendation are told",
    text(workflowSession, "agent_message_chunk"),
  );
  check(readFileSync(join(project, "main.go"), "utf8") === "package main\n\nfunc main() {}\n", "the user's tree is untouched");

  // Cancel: a workflow stopped during a slow model call in its pulse keeps
  // its work, and the next prompt resumes it.
  const s3 = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: s3.sessionId, modeId: "workflow" });
  const edited = until(() => {
    const mul = of(s3.sessionId, "tool_call").find((u) => u.title === "Add Mul");
    return of(s3.sessionId, "tool_call_update").some((u) => u.toolCallId === mul?.toolCallId && u.status === "completed");
  });
  const turn = ctx.request(acp.methods.agent.session.prompt, { sessionId: s3.sessionId, prompt: [{ type: "text", text: "Add a Mul function" }] });
  await edited;
  await new Promise((ok) => setTimeout(ok, 300)); // the slow model call is under way
  const cancelledAt = Date.now();
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s3.sessionId });
  const r4 = await turn;
  check(r4.stopReason === "cancelled", "a cancelled turn says so", r4);
  check(Date.now() - cancelledAt < 10_000, "the turn ends without waiting for the model", Date.now() - cancelledAt);
  const mulID = text(s3.sessionId, "agent_message_chunk").match(/\(id ([^,\s]+),/)?.[1];
  const stopped = execFileSync(bin, ["status", "--root", project], { env, encoding: "utf8" });
  check(mulID && stopped.split("\n").some((l) => l.includes(mulID) && l.includes("Stopped")), "the cancelled workflow is Stopped", stopped);
  const r5 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: s3.sessionId, prompt: [{ type: "text", text: "Go on" }] });
  check(r5.stopReason === "end_turn", "the next prompt resumes it", r5);
  check(text(s3.sessionId, "agent_message_chunk").includes("completed"), "the resumed workflow completes", text(s3.sessionId, "agent_message_chunk"));
  const mulBranch = text(s3.sessionId, "agent_message_chunk").match(/branch (autarch\/[^;)\s]+)/)?.[1];
  check(mulBranch && git("show", `${mulBranch}:main.go`).toString().includes("func Mul"), "the work done before the cancel is kept", mulBranch);

  // Job mode, in a second repository.
  const s4 = await ctx.request(acp.methods.agent.session.new, { cwd: calc, mcpServers: [] });
  jobSession = s4.sessionId;
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: jobSession, modeId: "job" });
  const r6 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: jobSession, prompt: [{ type: "text", text: "Fix Add: it subtracts" }] });
  check(r6.stopReason === "end_turn", "the job's turn ends", r6);
  const escalation = permissions.find((p) => p.sessionId === jobSession && (p.toolCall.title ?? "").includes("asks for a human review"));
  const shown = of(jobSession, "tool_call").find((u) => u.toolCallId === escalation?.toolCall.toolCallId);
  check(
    escalation?.options?.some((o) => o.optionId === "approve") && JSON.stringify(shown?.content ?? []).includes("Should Add saturate"),
    "the job's request_human_review is a permission request showing its reason",
    { permissions: permissions.filter((p) => p.sessionId === jobSession), shown },
  );
  check(
    of(jobSession, "tool_call").some((u) => u.title === "Fix the operator" && u.kind === "edit") &&
      of(jobSession, "tool_call").some((u) => u.title === "Check the fix" && u.kind === "execute"),
    "the job's tool calls are titled with their reasons",
    of(jobSession, "tool_call"),
  );
  check(/Job \S+ is done/.test(text(jobSession, "agent_message_chunk")), "the job is done", text(jobSession, "agent_message_chunk"));
  check(readFileSync(join(calc, "calc.go"), "utf8").includes("a - b"), "the job left the user's tree alone");

  // A workflow under way when the process is killed (below).
  const s5 = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  killedSession = s5.sessionId;
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: killedSession, modeId: "workflow" });
  const divEdited = until(() => {
    const div = of(killedSession, "tool_call").find((u) => u.title === "Add Div");
    return of(killedSession, "tool_call_update").some((u) => u.toolCallId === div?.toolCallId && u.status === "completed");
  });
  ctx.request(acp.methods.agent.session.prompt, { sessionId: killedSession, prompt: [{ type: "text", text: "Add a Div function" }] }).catch(() => {});
  await divEdited;
  await new Promise((ok) => setTimeout(ok, 300)); // the slow model call is under way
  killedID = text(killedSession, "agent_message_chunk").match(/\(id ([^,\s]+),/)?.[1];
}));

// 3. kill autarch acp, start it again and load the sessions.
first.child.kill("SIGKILL");
await new Promise((ok) => first.child.on("exit", ok));
const status = execFileSync(bin, ["status", "--root", project], { env, encoding: "utf8" });
check(workflowID && status.includes(workflowID), "autarch status shows the session's workflow", status);

const before = updates.length;
const second = startAgent();
await guard("second connection", () => makeClient().connectWith(second.stream, async (ctx) => {
  const again = await ctx.request(acp.methods.agent.initialize, initParams);
  check(again.agentCapabilities?.sessionCapabilities?.list !== undefined, "session/list is offered", again.agentCapabilities);
  const listed = await ctx.request(acp.methods.agent.session.list, { cwd: project });
  check(
    listed.sessions.some((x) => x.sessionId === workflowSession && x.title === "workflow: Add a Sub function to main.go" && x.cwd === project) &&
      listed.sessions.some((x) => x.sessionId === discussID && x.title === "discuss: What does main.go do?"),
    "session/list lists the recorded sessions with their first prompt",
    listed,
  );
  const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId: workflowSession, cwd: project, mcpServers: [] });
  check(loaded.modes?.currentModeId === "workflow", "the loaded session is in workflow mode", loaded);
  const replay = updates.slice(before).filter((u) => u.sessionId === workflowSession).map((u) => u.update);
  const kinds = (k) => replay.filter((u) => u.sessionUpdate === k);
  check(
    kinds("user_message_chunk").some((u) => u.content.text.includes("Add a Sub function")),
    "the task is replayed",
    kinds("user_message_chunk"),
  );
  check(kinds("tool_call").some((u) => u.title === "Add Sub" && u.kind === "edit"), "the edit's tool call is replayed", kinds("tool_call"));
  check(kinds("tool_call_update").some((u) => u.status === "completed"), "tool results are replayed", kinds("tool_call_update"));
  check(
    kinds("agent_message_chunk").some((u) => u.content.text.includes("Add Sub") && /approved/i.test(u.content.text)),
    "the scope card is replayed",
    kinds("agent_message_chunk"),
  );
  check(kinds("plan").length > 0, "the plan is replayed");

  const mark = updates.length;
  await ctx.request(acp.methods.agent.session.load, { sessionId: discussID, cwd: project, mcpServers: [] });
  const chat = updates.slice(mark).filter((u) => u.sessionId === discussID).map((u) => u.update);
  check(chat.some((u) => u.sessionUpdate === "user_message_chunk" && u.content.text === "What does main.go do?"), "the discussion's question is replayed", chat);
  check(chat.some((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("empty main function")), "the discussion's answer is replayed", chat);
  const onward = updates.length;
  const r7 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: discussID, prompt: [{ type: "text", text: "And then?" }] });
  const more = updates.slice(onward).filter((u) => u.sessionId === discussID && u.update.sessionUpdate === "agent_message_chunk");
  check(r7.stopReason === "end_turn" && more.map((u) => u.update.content.text).join("").includes("Then it exits."), "the reloaded discussion goes on", more);

  // 4. Fork the discussion: the fork's turn carries the copied history,
  // and the original hears nothing of it.
  const forked = await ctx.request(unstableMethods.agent.session.fork, { sessionId: discussID, cwd: project, mcpServers: [] });
  check(forked.sessionId && forked.sessionId !== discussID && forked.modes?.currentModeId === "discuss", "session/fork makes a new discussion", forked);
  const forkMark = updates.length;
  const rf = await ctx.request(acp.methods.agent.session.prompt, { sessionId: forked.sessionId, prompt: [{ type: "text", text: "Summarize" }] });
  const forkSaid = updates.slice(forkMark).filter((u) => u.update.sessionUpdate === "agent_message_chunk");
  check(
    rf.stopReason === "end_turn" && forkSaid.filter((u) => u.sessionId === forked.sessionId).map((u) => u.update.content.text).join("").includes("We talked about main.go."),
    "the fork answers with the copied history",
    forkSaid,
  );
  check(!forkSaid.some((u) => u.sessionId === discussID), "the original session hears nothing of the fork's turn", forkSaid);

  // Close the discussion during a turn: the turn ends cancelled at once.
  const slowMark = updates.length;
  const slowText = () =>
    updates
      .slice(slowMark)
      .filter((u) => u.sessionId === discussID && u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => u.update.content.text)
      .join("");
  const slowStarted = until(() => slowText().includes("Slowly"));
  const slowTurn = ctx.request(acp.methods.agent.session.prompt, { sessionId: discussID, prompt: [{ type: "text", text: "Explain it slowly" }] });
  await slowStarted;
  const closedAt = Date.now();
  await ctx.request(acp.methods.agent.session.close, { sessionId: discussID });
  const rs = await slowTurn;
  check(rs.stopReason === "cancelled", "the closed session's turn ends cancelled", rs);
  check(Date.now() - closedAt < 5_000, "closing does not wait for the model", Date.now() - closedAt);
  await expectError(
    ctx.request(acp.methods.agent.session.prompt, { sessionId: discussID, prompt: [{ type: "text", text: "still there?" }] }),
    "a prompt to a closed session",
    -32602,
    "unknown session",
  );

  // Resume it: no replay, and the discussion goes on with its history.
  const resumeMark = updates.length;
  const resumed = await ctx.request(acp.methods.agent.session.resume, { sessionId: discussID, cwd: project, mcpServers: [] });
  check(resumed.modes?.currentModeId === "discuss", "the resumed session is in discuss mode", resumed);
  check(!updates.slice(resumeMark).some((u) => u.sessionId === discussID), "session/resume replays nothing", updates.slice(resumeMark));
  const rr = await ctx.request(acp.methods.agent.session.prompt, { sessionId: discussID, prompt: [{ type: "text", text: "Anything else?" }] });
  const resumedSaid = updates.slice(resumeMark).filter((u) => u.sessionId === discussID && u.update.sessionUpdate === "agent_message_chunk");
  check(rr.stopReason === "end_turn" && resumedSaid.map((u) => u.update.content.text).join("").includes("Nothing else."), "the resumed discussion goes on", resumedSaid);

  // The workflow the kill interrupted: its history is replayed, it is
  // Stopped with its pulse work kept, and the next prompt finishes it.
  const killedMark = updates.length;
  await ctx.request(acp.methods.agent.session.load, { sessionId: killedSession, cwd: project, mcpServers: [] });
  const interrupted = updates.slice(killedMark).filter((u) => u.sessionId === killedSession).map((u) => u.update);
  check(interrupted.some((u) => u.sessionUpdate === "tool_call" && u.title === "Add Div"), "the killed workflow's tool calls are replayed", interrupted);
  const afterKill = execFileSync(bin, ["status", "--root", project], { env, encoding: "utf8" });
  check(killedID && afterKill.split("\n").some((l) => l.includes(killedID) && l.includes("Stopped")), "the killed workflow is Stopped after the restart", afterKill);
  const r8 = await ctx.request(acp.methods.agent.session.prompt, { sessionId: killedSession, prompt: [{ type: "text", text: "Go on" }] });
  const finished = updates.slice(killedMark).filter((u) => u.sessionId === killedSession && u.update.sessionUpdate === "agent_message_chunk").map((u) => u.update.content.text).join("");
  check(r8.stopReason === "end_turn" && finished.includes("completed"), "the killed workflow resumes and completes", finished);
  const divBranch = finished.match(/branch (autarch\/[^;)\s]+)/)?.[1];
  check(divBranch && git("show", `${divBranch}:main.go`).toString().includes("func Div"), "the work done before the kill is kept", divBranch);

  const jobMark = updates.length;
  const jobLoaded = await ctx.request(acp.methods.agent.session.load, { sessionId: jobSession, cwd: calc, mcpServers: [] });
  check(jobLoaded.modes?.currentModeId === "job", "the loaded job session is in job mode", jobLoaded);
  const jobReplay = updates.slice(jobMark).filter((u) => u.sessionId === jobSession).map((u) => u.update);
  check(jobReplay.some((u) => u.sessionUpdate === "user_message_chunk" && u.content.text === "Fix Add: it subtracts"), "the job's task is replayed", jobReplay);
  check(jobReplay.some((u) => u.sessionUpdate === "tool_call" && u.title === "Commit the fix"), "the job's tool calls are replayed", jobReplay);
  check(jobReplay.some((u) => u.sessionUpdate === "agent_message_chunk" && /is Done/.test(u.content.text)), "the job's state is replayed", jobReplay);

  await expectError(
    ctx.request(acp.methods.agent.session.load, { sessionId: "../../etc/passwd", cwd: project, mcpServers: [] }),
    "loading a hostile session id",
    -32602,
    "unknown session",
  );
}));
second.child.kill("SIGTERM");
await new Promise((ok) => second.child.on("exit", ok));
// The scripted model saw every step requested, each as its script expects.
const modelExit = new Promise((ok) => model.on("exit", ok));
model.kill("SIGTERM");
const modelCode = await modelExit;
check(modelCode === 0 && !/never requested|step \S+:/.test(modelLog), "the scripted model was asked exactly its script", { modelCode, modelLog });
finish(0);

// until resolves once cond holds (polled).
function until(cond) {
  return new Promise((ok) => {
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        ok();
      }
    }, 50);
  });
}

// guard records an unexpected error of a connection's run as a failure.
async function guard(what, run) {
  try {
    await run();
  } catch (e) {
    failures.push(`${what}: ${e?.stack ?? e}`);
    finish(1);
  }
}

function finish(code) {
  clearTimeout(timer);
  model.kill("SIGTERM");
  if (validated === 0) failures.push("no message was validated against the schema");
  if (code === 0 && failures.length === 0) {
    console.log(`acp e2e: ok (${validated} schema validations, ${updates.length} session updates, ${permissions.length} permission requests)`);
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }
  console.error(`acp e2e: ${failures.length} failure(s):\n- ${failures.join("\n- ")}`);
  console.error(`--- autarch log ---\n${agentLog.slice(-6000)}\n--- model log ---\n${modelLog.slice(-2000)}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}
