-- Shared by the Neovim probes (loaded with dofile from their own folder): a buffer's
-- diagnostics as plain tables for the probes' JSON (0-based lines).
local M = {}

function M.diagnostics(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(out, {
      line = d.lnum,
      col = d.col,
      severity = d.severity,
      code = d.code or lsp.code,
      message = d.message,
      source = d.source or lsp.source,
    })
  end
  return out
end

return M
