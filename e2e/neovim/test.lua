-- Drives `autarch serve` with Neovim's built-in LSP client (Neovim 0.7):
-- initialize, workspace/executeCommand of autarch.serverStatus, a
-- window/showMessage notification back from the server, then a whole quick
-- workflow against the scripted model: started with executeCommand,
-- approved through window/showMessageRequest, its review comment seen as a
-- diagnostic. Exits non-zero (cquit) on any failure.
local bin = os.getenv('AUTARCH_BIN')
local root = os.getenv('AUTARCH_ROOT')
local log = os.getenv('AUTARCH_NVIM_LOG')
local model_url = os.getenv('AUTARCH_MODEL_URL')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function say(msg) io.stdout:write(msg .. '\n') end

local messages = {}
local requests = {}
local review_diags = {}
local client_id = vim.lsp.start_client({
  name = 'autarch',
  cmd = { bin, 'serve', '--log', log },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'e2e' } },
  init_options = { model = { name = 'nvim-model', baseUrl = model_url }, apiKey = 'e2e' },
  handlers = {
    ['window/showMessage'] = function(_, result) table.insert(messages, result.message) end,
    -- Approvals arrive as message requests: choose "Approve".
    ['window/showMessageRequest'] = function(_, result)
      table.insert(requests, result.message)
      for _, a in ipairs(result.actions or {}) do
        if a.title == 'Approve' then return a end
      end
      return vim.NIL
    end,
    ['textDocument/publishDiagnostics'] = function(_, result)
      for _, d in ipairs(result.diagnostics or {}) do
        if d.source == 'autarch' then table.insert(review_diags, { uri = result.uri, d = d }) end
      end
    end,
  },
})
if not client_id then fail('start_client returned nil') end

local ok = vim.wait(10000, function()
  local c = vim.lsp.get_client_by_id(client_id)
  return c ~= nil and c.initialized
end, 50)
if not ok then fail('server did not initialize within 10s') end
local client = vim.lsp.get_client_by_id(client_id)
say('initialized: ' .. vim.inspect(client.server_capabilities.executeCommandProvider))

local cmds = (client.server_capabilities.executeCommandProvider or {}).commands or {}
if not vim.tbl_contains(cmds, 'autarch.serverStatus') then fail('autarch.serverStatus not advertised') end

local buf = vim.api.nvim_create_buf(true, false)
vim.api.nvim_buf_set_name(buf, root .. '/main.go')
vim.api.nvim_buf_set_option(buf, 'filetype', 'go')
vim.lsp.buf_attach_client(buf, client_id)

local resp, err = client.request_sync('workspace/executeCommand', { command = 'autarch.serverStatus', arguments = {} }, 10000, buf)
if err then fail('executeCommand: ' .. tostring(err)) end
if not resp or resp.err then fail('executeCommand error: ' .. vim.inspect(resp)) end
local status = resp.result
say('status: ' .. status.message)
if status.model.name ~= 'nvim-model' then fail('model name not from init_options: ' .. vim.inspect(status.model)) end
if not vim.tbl_contains(status.workspace, root) then fail('workspace folder missing: ' .. vim.inspect(status.workspace)) end

-- Ask the server to show a message back (autarch.showMessage echoes its argument).
resp, err = client.request_sync('workspace/executeCommand', { command = 'autarch.showMessage', arguments = { 'hello from neovim' } }, 10000, buf)
if err or not resp or resp.err then fail('autarch.showMessage: ' .. vim.inspect(resp or err)) end
ok = vim.wait(5000, function() return #messages > 0 end, 50)
if not ok then fail('no window/showMessage from the server') end
say('showMessage: ' .. messages[1])
if not messages[1]:find('hello from neovim', 1, true) then fail('unexpected message: ' .. messages[1]) end

-- A whole workflow: start it, approve through showMessageRequest, see the review as a diagnostic.
resp, err = client.request_sync('workspace/executeCommand', { command = 'autarch.newWorkflow', arguments = { { task = 'Add Sub', name = 'nvim-sub', path = 'quick' } } }, 10000, buf)
if err or not resp or resp.err then fail('autarch.newWorkflow: ' .. vim.inspect(resp or err)) end
say('workflow started: ' .. vim.inspect(resp.result))
local wf
ok = vim.wait(90000, function()
  local r = client.request_sync('autarch/workflows', {}, 5000, buf)
  wf = r and r.result and r.result[1]
  return wf ~= nil and (wf.stage == 'done' or wf.status ~= 'Active')
end, 200)
if not ok or wf.stage ~= 'done' then fail('workflow did not finish: ' .. vim.inspect(wf) .. '; approvals asked: ' .. vim.inspect(requests)) end
say('workflow: ' .. wf.name .. ' ' .. wf.stage .. ' ' .. wf.status)
ok = vim.wait(5000, function() return #review_diags > 0 end, 50)
if not ok then fail('no review diagnostics') end
local rd = review_diags[1]
say('review diagnostic: ' .. rd.uri .. ':' .. (rd.d.range.start.line + 1) .. ' ' .. rd.d.message)
if not rd.uri:find('main.go', 1, true) or rd.d.range.start.line ~= 4 or not rd.d.message:find('Sub adds instead of subtracting', 1, true) then
  fail('unexpected review diagnostic: ' .. vim.inspect(rd))
end
if #requests < 2 or not requests[1]:find('Approve the scope', 1, true) then fail('approvals not asked through showMessageRequest: ' .. vim.inspect(requests)) end

client.stop()
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
say('PASS')
vim.cmd('qall!')
