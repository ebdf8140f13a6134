-- Test driver for navigation, run after the config: document links, semantic tokens (0.9+),
-- go to definition with vim.lsp.buf.definition() (the jump), references with
-- vim.lsp.buf.references() (the quickfix list) and a rename with vim.lsp.buf.rename(), then
-- writes JSON and quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "tokens": {name: [line, character]},
-- "definition": [line, character], "references": [line, character],
-- "rename": {"at": [line, character], "to": name}} (0-based).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = {
  version = ("%d.%d"):format(vim.version().major, vim.version().minor),
  clients = 0,
  links = {},
  tokens = {},
  definition = vim.NIL,
  references = {},
  renamed = vim.NIL,
  errors = {},
}

local function fail(message)
  table.insert(result.errors, message)
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.attached(bufnr, result, fail) then
    break
  end

  local responses, err = vim.lsp.buf_request_sync(
    bufnr, "textDocument/documentLink", { textDocument = { uri = uri } }, 30000
  )
  if err then
    fail("documentLink: " .. tostring(err))
  end
  for _, response in pairs(responses or {}) do
    for _, link in ipairs(response.result or {}) do
      table.insert(result.links, { line = link.range.start.line, target = link.target })
    end
  end

  if vim.lsp.semantic_tokens and vim.lsp.semantic_tokens.get_at_pos then -- 0.9+
    for name, at in pairs(spec.tokens) do
      local found = {}
      vim.wait(30000, function()
        found = vim.lsp.semantic_tokens.get_at_pos(bufnr, at[1], at[2]) or {}
        return #found > 0
      end, 20)
      local types = {}
      for _, token in ipairs(found) do
        table.insert(types, token.type)
      end
      result.tokens[name] = types
    end
  end

  -- Go to definition: the jump, read as the window's file and cursor (0-based).
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_cursor(win, { spec.definition[1] + 1, spec.definition[2] })
  vim.lsp.buf.definition()
  if vim.wait(30000, function()
    return vim.api.nvim_win_get_buf(win) ~= bufnr
  end, 20) then
    local cursor = vim.api.nvim_win_get_cursor(win)
    result.definition = {
      file = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)),
      line = cursor[1] - 1,
      character = cursor[2],
    }
  else
    fail("go to definition did not jump within 30 s")
  end
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_buf(win, bufnr)

  -- References: the quickfix list the client fills (and opens).
  vim.fn.setqflist({}, "r")
  vim.api.nvim_win_set_cursor(win, { spec.references[1] + 1, spec.references[2] })
  vim.lsp.buf.references()
  if not vim.wait(30000, function()
    return #vim.fn.getqflist() > 0
  end, 20) then
    fail("references filled no quickfix list within 30 s")
  end
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(result.references, {
      file = vim.api.nvim_buf_get_name(item.bufnr),
      line = item.lnum - 1,
      text = item.text,
    })
  end
  vim.cmd("cclose")
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_buf(win, bufnr)

  local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  vim.api.nvim_win_set_cursor(0, { spec.rename.at[1] + 1, spec.rename.at[2] })
  vim.lsp.buf.rename(spec.rename.to)
  if not vim.wait(30000, function()
    return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
  end, 20) then
    fail("the rename changed nothing within 30 s")
  end
  result.renamed = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
until true

common.finish(result, spec.out)
