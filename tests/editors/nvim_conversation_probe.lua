-- Test driver for :HoloDeckConversation, run after the page's config: waits for the server's
-- first diagnostics, puts the cursor on spec.cursor, runs :HoloDeckConversation before any run
-- (a warning), runs the case with :HoloDeckRun case's function, then :HoloDeckConversation as a
-- user types it, and writes what it opened (name, filetype, buftype, modifiable, lines), the
-- run's answer, every vim.notify and any Lua error as JSON. Quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "cursor": 0-based line}.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = {
  clients = 0,
  answer = vim.NIL, -- the run's answer
  opened = vim.NIL, -- { name, lines, filetype, buftype, modifiable }
  notifications = {}, -- { message, level }
  errors = {},
}

local function fail(message)
  table.insert(result.errors, message)
end

local published = false
common.on_publish(uri, function()
  published = true
end)
common.on_notify(function(message, level)
  table.insert(result.notifications, { message = message, level = level })
end)

local function conversation()
  local windows = #vim.api.nvim_list_wins()
  local said = #result.notifications
  local ok, err = pcall(vim.cmd, "HoloDeckConversation")
  if not ok then
    fail(":HoloDeckConversation raised: " .. tostring(err))
    return false
  end
  if not vim.wait(20000, function()
    return #vim.api.nvim_list_wins() > windows or #result.notifications > said
  end, 20) then
    fail("no window and no message from :HoloDeckConversation within 20 s")
    return false
  end
  return true
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return published
  end) then
    break
  end
  vim.api.nvim_win_set_cursor(0, { spec.cursor + 1, 0 })
  if not conversation() then -- before any run: the server's reason, no buffer
    break
  end
  local answered = false
  require("holodeck").run("case", function(answer)
    result.answer = answer
    answered = true
  end)
  if not vim.wait(60000, function()
    return answered
  end, 20) then
    fail("the case's run did not end within 60 s")
    break
  end
  if not conversation() then
    break
  end
  vim.wait(300) -- let a handler that errors after opening the window do so
  local shown = vim.api.nvim_get_current_buf()
  if shown ~= bufnr then
    result.opened = {
      name = vim.api.nvim_buf_get_name(shown),
      lines = vim.api.nvim_buf_get_lines(shown, 0, -1, false),
      filetype = vim.bo[shown].filetype,
      buftype = vim.bo[shown].buftype,
      modifiable = vim.bo[shown].modifiable,
    }
  end
until true

common.finish(result, spec.out)
