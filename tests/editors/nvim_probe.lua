-- Test driver, run after the config: waits for diagnostics, asks for hover, tries
-- :HoloDeckRun turn, writes JSON, quits.
-- $HOLODECK_NVIM_OUT: output JSON path; $HOLODECK_NVIM_HOVER: "line,character" (0-based);
-- $HOLODECK_NVIM_RUN_AT: the 0-based line to put the cursor on for :HoloDeckRun turn.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local out_path = vim.env.HOLODECK_NVIM_OUT
local bufnr = vim.api.nvim_get_current_buf()
local result = { clients = 0, diagnostics = {}, hover = vim.NIL, messages = {}, errors = {} }

local notify = vim.notify
vim.notify = function(message, level, opts) -- what the user commands tell the user
  table.insert(result.messages, message)
  return notify(message, level, opts)
end

local attached = vim.wait(30000, function()
  return #common.clients(bufnr) > 0
end, 20)
result.clients = #common.clients(bufnr)
if not attached then
  table.insert(result.errors, "no client attached within 30 s")
end

local got = vim.wait(40000, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 20)
if not got then
  table.insert(result.errors, "no diagnostics within 40 s")
end
result.diagnostics = common.diagnostics(bufnr)

local line, character = string.match(vim.env.HOLODECK_NVIM_HOVER or "0,0", "(%d+),(%d+)")
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = tonumber(line), character = tonumber(character) },
}
local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
if err then
  table.insert(result.errors, "hover: " .. tostring(err))
end
for _, response in pairs(responses or {}) do
  if response.err then
    table.insert(result.errors, "hover error: " .. vim.inspect(response.err))
  elseif response.result then
    result.hover = response.result
  end
end

if vim.env.HOLODECK_NVIM_RUN_AT then
  vim.api.nvim_win_set_cursor(0, { tonumber(vim.env.HOLODECK_NVIM_RUN_AT) + 1, 0 })
  vim.cmd("HoloDeckRun turn")
  if not vim.wait(30000, function()
    return #result.messages > 0
  end, 20) then
    table.insert(result.errors, ":HoloDeckRun turn said nothing within 30 s")
  end
end

common.finish(result, out_path)
