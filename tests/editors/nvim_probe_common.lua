-- Shared by the Neovim probes (loaded with dofile from their own folder): a buffer's
-- diagnostics as plain tables for the probes' JSON (0-based lines), and the way out.
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

-- Write `result` as JSON to `path`, stop the language clients, quit Neovim.
function M.finish(result, path)
  local file = assert(io.open(path, "w"))
  file:write(vim.fn.json_encode(result))
  file:close()
  for _, client in pairs(vim.lsp.get_active_clients()) do
    client.stop()
  end
  vim.wait(2000, function()
    return #vim.lsp.get_active_clients() == 0
  end, 20)
  vim.cmd("qa!")
end

return M
