-- Test driver for completion and quick fixes, run after the config: waits for the first
-- diagnostics, misspells a matcher kind and applies the server's quick fix with
-- vim.lsp.buf.code_action() (the choice made through vim.ui.select, as a user picks it), then
-- completes a half-typed matcher kind through Neovim's LSP client, writes JSON and quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "fault": {"line", "from", "to", "fix"},
-- "complete": {"line", "text"}} (0-based lines; "fix" is the title of the action to apply).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = {
  clients = 0,
  publishes = 0,
  fault_diagnostics = {},
  offered = {}, -- the code action titles vim.ui.select was given
  fixed_line = vim.NIL,
  fixed_diagnostics = {},
  completions = {},
  completed_line = vim.NIL,
  errors = {},
}

local function fail(message)
  table.insert(result.errors, message)
end

common.on_publish(uri, function()
  result.publishes = result.publishes + 1
end)

-- The user's pick in the code action menu: the item whose title is spec.fault.fix.
local pick = spec.fault.fix
vim.ui.select = function(items, opts, on_choice)
  for index, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    table.insert(result.offered, title)
    if title == pick or vim.startswith(title, pick .. " ") then
      return on_choice(item, index)
    end
  end
  return on_choice(nil, nil)
end

local function line_text(line)
  return vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return result.publishes > 0
  end) then
    break
  end

  -- A misspelt matcher kind: its diagnostic, then the quick fix on that line.
  local fault = spec.fault
  local text = line_text(fault.line)
  local from = text:find(fault.from, 1, true)
  if from == nil then
    fail(("no %q on line %d: %q"):format(fault.from, fault.line, text))
    break
  end
  vim.api.nvim_buf_set_text(bufnr, fault.line, from - 1, fault.line, from - 1 + #fault.from, { fault.to })
  if not vim.wait(40000, function()
    return #vim.diagnostic.get(bufnr, { lnum = fault.line }) > 0
  end, 20) then
    fail("no diagnostic on the misspelt line within 40 s")
    break
  end
  result.fault_diagnostics = common.diagnostics(bufnr)
  local faulty = line_text(fault.line)
  vim.api.nvim_win_set_cursor(0, { fault.line + 1, from - 1 })
  vim.lsp.buf.code_action()
  if not vim.wait(30000, function()
    return line_text(fault.line) ~= faulty
  end, 20) then
    fail("the quick fix changed nothing within 30 s: " .. vim.inspect(result.offered))
    break
  end
  result.fixed_line = line_text(fault.line)
  vim.wait(40000, function()
    return #vim.diagnostic.get(bufnr) == 0
  end, 20)
  result.fixed_diagnostics = common.diagnostics(bufnr)

  -- A half-typed matcher kind: what the server offers there, and the chosen item applied.
  local complete = spec.complete
  vim.api.nvim_buf_set_lines(bufnr, complete.line, complete.line + 1, false, { complete.text })
  local params = {
    textDocument = { uri = uri },
    position = { line = complete.line, character = #complete.text },
  }
  local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", params, 10000)
  if err then
    fail("completion: " .. tostring(err))
    break
  end
  local client = common.clients(bufnr)[1]
  local chosen
  for _, response in pairs(responses or {}) do
    local answer = response.result or {}
    for _, item in ipairs(answer.items or answer) do
      if vim.startswith(item.filterText or item.label, vim.trim(complete.text)) then
        table.insert(result.completions, item.label)
        if chosen == nil then
          chosen = item
        end
      end
    end
  end
  if chosen == nil then
    fail("no completion for " .. complete.text)
    break
  end
  -- The item's edit, as a completion plugin applies it: its range (an InsertReplaceEdit's
  -- `replace`) replaced, a snippet expanded (vim.snippet on 0.10+, parse_snippet before).
  local edit = chosen.textEdit or {}
  local range = edit.range or edit.replace or {
    start = { line = complete.line, character = #complete.text - #vim.trim(complete.text) },
    ["end"] = { line = complete.line, character = #complete.text },
  }
  local body = edit.newText or chosen.insertText or chosen.label
  local snippet = chosen.insertTextFormat == 2
  vim.lsp.util.apply_text_edits({ { range = range, newText = "" } }, bufnr, client.offset_encoding)
  if snippet and vim.snippet then
    vim.o.virtualedit = "onemore" -- the cursor after the line's end, as in insert mode
    vim.api.nvim_win_set_cursor(0, { range.start.line + 1, range.start.character })
    vim.snippet.expand(body)
  else
    if snippet then
      body = vim.lsp.util.parse_snippet(body)
    end
    vim.lsp.util.apply_text_edits({ { range = { start = range.start, ["end"] = range.start }, newText = body } },
      bufnr, client.offset_encoding)
  end
  result.completed_line = line_text(complete.line)
until true

common.finish(result, spec.out)
