-- Test driver for :HoloDeckCompare, run after the page's config: waits for the server's first
-- diagnostics, runs the command as a user types it, waits for what it opens (a new window) or
-- says (a notification), and writes that to JSON: the windows, the new buffer's lines, filetype
-- and buftype, every vim.notify with its level, the `:messages` and any Lua error. Quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path}.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = {
  version = ("%d.%d"):format(vim.version().major, vim.version().minor),
  clients = 0,
  windows_before = 0,
  windows = 0,
  opened = vim.NIL, -- { lines, filetype, buftype, name, modified }
  notifications = {}, -- { message, level }
  messages = "",
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

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return published
  end) then
    break
  end

  result.windows_before = #vim.api.nvim_list_wins()
  local ok, err = pcall(vim.cmd, "HoloDeckCompare")
  if not ok then
    fail(":HoloDeckCompare raised: " .. tostring(err))
    break
  end
  -- The answer comes back asynchronously: a new window, or a notification saying why not.
  if not vim.wait(20000, function()
    return #vim.api.nvim_list_wins() > result.windows_before or #result.notifications > 0
  end, 20) then
    fail("no window and no message from :HoloDeckCompare within 20 s")
    break
  end
  vim.wait(300) -- let a handler that errors after opening the window do so
  result.windows = #vim.api.nvim_list_wins()
  local shown = vim.api.nvim_get_current_buf()
  if shown ~= bufnr then
    result.opened = {
      lines = vim.api.nvim_buf_get_lines(shown, 0, -1, false),
      filetype = vim.bo[shown].filetype,
      buftype = vim.bo[shown].buftype,
      name = vim.api.nvim_buf_get_name(shown),
      modified = vim.bo[shown].modified,
    }
  end
until true

result.messages = vim.api.nvim_exec("messages", true)
common.finish(result, spec.out)
