-- How run results are shown: the server's inlay hints as end-of-line virtual text before 0.10
-- (0.10+ shows inlay hints itself), and a run's failures — its `holodeck-run` diagnostics of
-- severity Error — in the quickfix list.
local config = require("holodeck.config")
local lsp = require("holodeck.lsp")

local M = {}

M.namespace = vim.api.nvim_create_namespace("holodeck_results")
M.QUICKFIX_TITLE = "HoloDeck run failures"

local function label_of(hint)
  local label = hint.label
  if type(label) == "table" then -- InlayHintLabelPart[]
    label = table.concat(vim.tbl_map(function(part) return part.value end, label))
  end
  return label
end

-- Before 0.10: ask for the inlay hints and draw them as virtual text (after each run and each
-- diagnostics update, which is also when the server drops results of an edited case).
function M.show_hints(bufnr)
  local client = lsp.client(bufnr)
  if client == nil or vim.lsp.inlay_hint or not config.options.inlay_hints then
    return
  end
  local last = vim.api.nvim_buf_line_count(bufnr)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = last, character = 0 } },
  }
  lsp.request(client, "textDocument/inlayHint", params, function(err, hints)
    if err or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
    for _, hint in ipairs(hints or {}) do
      local line = math.min(hint.position.line, vim.api.nvim_buf_line_count(bufnr) - 1)
      vim.api.nvim_buf_set_extmark(bufnr, M.namespace, line, 0, {
        virt_text = { { label_of(hint), "Comment" } },
        virt_text_pos = "eol",
      })
    end
  end, bufnr)
end

-- The run results as shown, for any version: { {line, text} } (0-based lines).
function M.shown(bufnr)
  local marks = {}
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.get then -- 0.10+
    for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
      table.insert(marks, { line = item.inlay_hint.position.line, text = label_of(item.inlay_hint) })
    end
    return marks
  end
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, M.namespace, 0, -1, { details = true })) do
    local text = {}
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
    table.insert(marks, { line = mark[2], text = table.concat(text) })
  end
  return marks
end

local function run_failures(bufnr)
  local failures = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })) do
    local lsp_data = (d.user_data or {}).lsp or {}
    if (d.source or lsp_data.source) == "holodeck-run" then
      table.insert(failures, d)
    end
  end
  return failures
end

-- After a run of the buffer: the file's run failures as shown (this run's and those of
-- earlier runs still standing) into the quickfix list, replacing the last list of ours;
-- another plugin's list is left alone when there are none.
function M.fill_quickfix(bufnr)
  if not config.options.quickfix then
    return 0
  end
  local failures = run_failures(bufnr)
  local current = vim.fn.getqflist({ title = 0 }).title
  if #failures == 0 and current ~= M.QUICKFIX_TITLE then
    return 0
  end
  local items = vim.diagnostic.toqflist(failures)
  local same = current == M.QUICKFIX_TITLE and "r" or " "
  vim.fn.setqflist({}, same, { title = M.QUICKFIX_TITLE, items = items })
  return #items
end

local group = vim.api.nvim_create_augroup("holodeck_results", { clear = true })
local attached = {}
local last -- the buffer attached last (what :checkhealth holodeck reports on)

function M.last_attached()
  if last and vim.api.nvim_buf_is_valid(last) then
    return last
  end
  return nil
end

function M.attach(bufnr)
  last = bufnr
  if attached[bufnr] then
    return
  end
  attached[bufnr] = true
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = group,
    buffer = bufnr,
    callback = function() M.show_hints(bufnr) end,
  })
end

return M
