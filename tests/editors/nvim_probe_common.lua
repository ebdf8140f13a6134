-- Shared by the Neovim probes (loaded with dofile from their own folder): what they watch
-- (publishes, notifications), a buffer's diagnostics as plain tables for the probes' JSON
-- (0-based lines), and the way out.
local M = {}

-- Calls `seen(params)` for each publishDiagnostics of `uri`, before Neovim's own handler.
function M.on_publish(uri, seen)
  local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, params, ctx, config)
    if params and params.uri == uri then
      seen(params)
    end
    return publish(err, params, ctx, config)
  end
end

-- Calls `seen(message, level)` for each vim.notify (what the plugin tells the user); the
-- level nil that callers mean as INFO is passed as INFO, a number for the JSON.
function M.on_notify(seen)
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    seen(message, level or vim.log.levels.INFO)
    return notify(message, level, opts)
  end
end

-- The language clients attached to a buffer (a list), on every version.
function M.clients(bufnr)
  if vim.lsp.get_clients then -- 0.10+
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end

-- Waits (30 s: a client counts as attached once the server has answered initialize, which
-- takes seconds on a busy 2-core machine) for a client to attach to the buffer and counts
-- them in `result.clients`; false (after `fail`) when none did.
function M.attached(bufnr, result, fail)
  if not vim.wait(30000, function()
    return #M.clients(bufnr) > 0
  end, 20) then
    fail("no client attached within 30 s")
    return false
  end
  result.clients = #M.clients(bufnr)
  return true
end

-- `attached`, then waits (15 s) until `published()` says the server's first diagnostics
-- arrived; false (after `fail`) when either did not happen.
function M.ready(bufnr, result, fail, published)
  if not M.attached(bufnr, result, fail) then
    return false
  end
  if not vim.wait(40000, published, 20) then
    fail("no publishDiagnostics within 40 s")
    return false
  end
  return true
end

local function all_clients()
  return vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
end

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
  for _, client in pairs(all_clients()) do
    if vim.fn.has("nvim-0.11") == 1 then
      client:stop()
    else
      client.stop()
    end
  end
  vim.wait(2000, function()
    return #all_clients() == 0
  end, 20)
  vim.cmd("qa!")
end

return M
