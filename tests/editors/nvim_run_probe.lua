-- Test driver for a trusted suite with a replay cassette, run after the config: waits for the
-- first diagnostics, asks for symbols, lenses and hover, runs turns with :HoloDeckRun turn,
-- reads back diagnostics, the results as the plugin shows them (require("holodeck").shown:
-- virtual text before 0.10, inlay hints after), inlay hints and lens titles, opens
-- :HoloDeckReport, then runs a case with :HoloDeckRun case and the file with :HoloDeckRun all
-- and reads the same again after each; writes JSON, quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "hover": {name: [line, character]},
-- "runs": [{"cursor": line, "hint_line": line}],
-- "more_runs": [{"kind": "case" | "all", "cursor": line, "hint_lines": [line]}]} (0-based).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local started = vim.loop.hrtime()
local result = {
  clients = 0,
  first_diagnostics = vim.NIL,
  publishes = 0,
  symbols = 0,
  lenses = {},
  hover = {},
  runs = {},
  messages = {},
  diagnostics = {},
  virtual_text = {},
  inlay_hints = {},
  lenses_after = {},
  quickfix = {}, -- after each run: { title, items }
  report = vim.NIL, -- what :HoloDeckReport opened: { lines, filetype, buftype }
  more_runs = {}, -- per spec.more_runs: { message, quickfix, diagnostics, shown, lenses }
  timings = {},
  errors = {},
}

local function elapsed()
  return (vim.loop.hrtime() - started) / 1e6
end

local function fail(message)
  table.insert(result.errors, message)
end

-- Observe (without changing) what the server publishes and what the user commands say.
common.on_publish(uri, function(params)
  result.publishes = result.publishes + 1
  if result.first_diagnostics == vim.NIL then
    result.first_diagnostics = params.diagnostics
  end
end)
common.on_notify(function(message)
  table.insert(result.messages, message)
end)

local function request(method, params)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, 10000)
  if err then
    fail(method .. ": " .. tostring(err))
  end
  for _, response in pairs(responses or {}) do
    if response.err then
      fail(method .. " error: " .. vim.inspect(response.err))
    elseif response.result ~= nil then
      return response.result
    end
  end
  return vim.NIL
end

local function lens_list(lenses)
  local list = {}
  for _, lens in ipairs(lenses ~= vim.NIL and lenses or {}) do
    table.insert(list, {
      line = lens.range.start.line,
      title = lens.command.title,
      command = lens.command.command,
      arguments = lens.command.arguments,
    })
  end
  return list
end

local function virtual_text() -- the run results as the plugin shows them, on any version
  return require("holodeck").shown(bufnr)
end
local function has_mark_at(lines)
  local marked = {}
  for _, mark in ipairs(virtual_text()) do
    marked[mark.line] = true
  end
  for _, line in ipairs(lines) do
    if not marked[line] then
      return false
    end
  end
  return true
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return result.publishes > 0
  end) then
    break
  end
  result.timings.first_diagnostics_ms = elapsed()

  local symbols = request("textDocument/documentSymbol", { textDocument = { uri = uri } })
  result.symbols = symbols ~= vim.NIL and #symbols or 0
  result.lenses = lens_list(request("textDocument/codeLens", { textDocument = { uri = uri } }))
  for name, at in pairs(spec.hover) do
    result.hover[name] = request("textDocument/hover", {
      textDocument = { uri = uri },
      position = { line = at[1], character = at[2] },
    })
  end
  result.timings.navigation_ms = elapsed()

  local hint_lines = {}
  for _, run in ipairs(spec.runs) do
    local said = #result.messages
    vim.api.nvim_win_set_cursor(0, { run.cursor + 1, 0 })
    vim.cmd("HoloDeckRun turn")
    if not vim.wait(60000, function()
      return #result.messages > said
    end, 20) then
      fail("no answer to :HoloDeckRun turn at line " .. run.cursor .. " within 60 s")
      break
    end
    table.insert(result.runs, result.messages[#result.messages])
    table.insert(result.quickfix, vim.fn.getqflist({ title = 0, items = 0 }))
    table.insert(hint_lines, run.hint_line)
    if not vim.wait(15000, function()
      return has_mark_at(hint_lines)
    end, 20) then
      fail("no virtual text at lines " .. vim.inspect(hint_lines) .. " within 15 s")
      break
    end
  end
  result.timings.runs_ms = elapsed()

  result.diagnostics = common.diagnostics(bufnr)
  result.virtual_text = virtual_text()
  local whole = {
    start = { line = 0, character = 0 },
    ["end"] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 },
  }
  local hints = request("textDocument/inlayHint", { textDocument = { uri = uri }, range = whole })
  for _, hint in ipairs(hints ~= vim.NIL and hints or {}) do
    table.insert(result.inlay_hints, { line = hint.position.line, label = hint.label })
  end
  local lenses = request("textDocument/codeLens", { textDocument = { uri = uri } })
  result.lenses_after = lens_list(lenses)

  -- :HoloDeckReport: the last run's Markdown in a new window.
  local windows = #vim.api.nvim_list_wins()
  vim.cmd("HoloDeckReport")
  if not vim.wait(30000, function()
    return #vim.api.nvim_list_wins() > windows
  end, 20) then
    fail("no window from :HoloDeckReport within 30 s")
    break
  end
  local shown = vim.api.nvim_get_current_buf()
  result.report = {
    lines = vim.api.nvim_buf_get_lines(shown, 0, -1, false),
    filetype = vim.bo[shown].filetype,
    buftype = vim.bo[shown].buftype,
  }
  vim.cmd("close") -- back to the agent file's window
  if vim.api.nvim_get_current_buf() ~= bufnr then
    fail("not back in the agent file after closing the report")
    break
  end

  -- :HoloDeckRun case, then :HoloDeckRun all: the message, the quickfix list, the results as
  -- shown, the diagnostics and the lens titles after each.
  for _, run in ipairs(spec.more_runs or {}) do
    local said = #result.messages
    vim.api.nvim_win_set_cursor(0, { run.cursor + 1, 0 })
    vim.cmd("HoloDeckRun " .. run.kind)
    if not vim.wait(90000, function()
      return #result.messages > said
    end, 20) then
      fail("no answer to :HoloDeckRun " .. run.kind .. " within 90 s")
      break
    end
    local message = result.messages[#result.messages]
    if not vim.wait(30000, function()
      return has_mark_at(run.hint_lines)
    end, 20) then
      fail(":HoloDeckRun " .. run.kind .. ": no results shown at lines " .. vim.inspect(run.hint_lines))
    end
    table.insert(result.more_runs, {
      kind = run.kind,
      message = message,
      quickfix = vim.fn.getqflist({ title = 0, items = 0 }),
      diagnostics = common.diagnostics(bufnr),
      shown = virtual_text(),
      lenses = lens_list(request("textDocument/codeLens", { textDocument = { uri = uri } })),
    })
  end
until true

result.timings.total_ms = elapsed()
common.finish(result, spec.out)
