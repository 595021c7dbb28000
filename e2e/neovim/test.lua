-- Drives `autarch serve` with Neovim's built-in LSP client (Neovim 0.7):
-- initialize, workspace/executeCommand of autarch.serverStatus, and a
-- window/showMessage notification back from the server. Exits non-zero
-- (cquit) on any failure.
local bin = os.getenv('AUTARCH_BIN')
local root = os.getenv('AUTARCH_ROOT')
local log = os.getenv('AUTARCH_NVIM_LOG')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function say(msg) io.stdout:write(msg .. '\n') end

local messages = {}
local client_id = vim.lsp.start_client({
  name = 'autarch',
  cmd = { bin, 'serve', '--log', log },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'e2e' } },
  init_options = { model = { name = 'nvim-model' } },
  handlers = {
    ['window/showMessage'] = function(_, result) table.insert(messages, result.message) end,
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

client.stop()
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
say('PASS')
vim.cmd('qall!')
