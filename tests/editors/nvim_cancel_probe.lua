-- Test driver for cancelling a run, run after the config: waits for the server's first
-- diagnostics, starts :HoloDeckRun all as a user types it, waits for the run's progress to say
-- its backend is up and its turns are running, and until the slow model was asked (it writes
-- spec.asked), cancels it with require("holodeck").cancel(done), waits for the run to
-- end, then says :HoloDeckCancel again (nothing running). Writes JSON: every vim.notify with
-- its level and time, every $/progress value, the answers to the plugin's
-- workspace/executeCommand requests (observed, not changed), the timings, the quickfix list
-- and any error. Quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "asked": path, "end_within_ms": ms}.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local started = vim.loop.hrtime()
local result = {
  version = ("%d.%d"):format(vim.version().major, vim.version().minor),
  clients = 0,
  notifications = {}, -- { message, level, ms }
  progress = {}, -- { kind, title, message, ms }
  answers = {}, -- { command, status, result, ms }: the plugin's executeCommand answers
  cancel_done = vim.NIL, -- what cancel(done) was called with
  timings = {},
  quickfix = vim.NIL,
  messages = "",
  errors = {},
}

local function elapsed()
  return (vim.loop.hrtime() - started) / 1e6
end

local function fail(message)
  table.insert(result.errors, message)
end

local published = false
common.on_publish(uri, function()
  published = true
end)
-- $/progress goes through vim.lsp.handlers on every version (0.11 looks the handler up per
-- message), so this sees what Neovim keeps for statusline plugins.
local progress = vim.lsp.handlers["$/progress"]
vim.lsp.handlers["$/progress"] = function(err, params, ctx, config)
  local value = params and params.value or {}
  table.insert(result.progress, {
    kind = value.kind,
    title = value.title,
    message = value.message,
    ms = elapsed(),
  })
  return progress(err, params, ctx, config)
end
common.on_notify(function(message, level)
  table.insert(result.notifications, { message = message, level = level, ms = elapsed() })
end)
-- The plugin's requests, observed: each workspace/executeCommand answer as it arrives.
local plugin_lsp = require("holodeck.lsp")
local request = plugin_lsp.request
plugin_lsp.request = function(client, method, params, handler, buf)
  if method ~= "workspace/executeCommand" then
    return request(client, method, params, handler, buf)
  end
  return request(client, method, params, function(err, answer, ...)
    table.insert(result.answers, {
      command = params.command,
      status = answer and answer.status or vim.NIL,
      error = err and (err.message or vim.inspect(err)) or vim.NIL,
      result = answer or vim.NIL,
      ms = elapsed(),
    })
    return handler(err, answer, ...)
  end, buf)
end

local function said(prefix, from)
  for i = from or 1, #result.notifications do
    if vim.startswith(result.notifications[i].message, prefix) then
      return result.notifications[i]
    end
  end
  return nil
end

local function running()
  for _, value in ipairs(result.progress) do
    if value.kind == "report" and vim.startswith(value.message or "", "running ") then
      return true
    end
  end
  return false
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return published
  end) then
    break
  end

  local ok, err = pcall(vim.cmd, "HoloDeckRun all")
  if not ok then
    fail(":HoloDeckRun all raised: " .. tostring(err))
    break
  end
  result.timings.run_ms = elapsed()
  -- The backend is up once the progress says "running N turns…" (building it imports the
  -- SDK: seconds on a busy machine).
  if not vim.wait(60000, function()
    return running() or said("HoloDeckRun all") ~= nil
  end, 20) then
    fail("no 'running' progress within 60 s")
    break
  end
  if said("HoloDeckRun all") ~= nil then
    fail("the run ended before it was cancelled: " .. said("HoloDeckRun all").message)
    break
  end
  result.timings.running_ms = elapsed()
  -- The first answer is asked for, and waits in the slow model (which marks the file).
  if not vim.wait(60000, function()
    return vim.loop.fs_stat(spec.asked) ~= nil or said("HoloDeckRun all") ~= nil
  end, 20) then
    fail("the model was not asked within 60 s")
    break
  end
  result.timings.asked_ms = elapsed()

  local before = #result.notifications
  result.timings.cancel_ms = elapsed()
  require("holodeck").cancel(function(answer)
    result.cancel_done = answer or vim.NIL
  end)
  if not vim.wait(spec.end_within_ms, function()
    return said("HoloDeckRun all", before + 1) ~= nil
  end, 20) then
    fail(("the run did not end within %d ms of the cancel"):format(spec.end_within_ms))
    break
  end
  result.timings.ended_ms = said("HoloDeckRun all", before + 1).ms
  vim.wait(500) -- the progress's end, the diagnostics after the answer
  result.quickfix = vim.fn.getqflist({ title = 0, items = 0 })

  -- Once the run is over, there is nothing to cancel.
  local after = #result.notifications
  ok, err = pcall(vim.cmd, "HoloDeckCancel")
  if not ok then
    fail(":HoloDeckCancel raised: " .. tostring(err))
    break
  end
  if not vim.wait(10000, function()
    return said("HoloDeckCancel", after + 1) ~= nil
  end, 20) then
    fail("no answer to :HoloDeckCancel within 10 s")
    break
  end
until true

result.timings.total_ms = elapsed()
result.messages = vim.api.nvim_exec("messages", true)
common.finish(result, spec.out)
