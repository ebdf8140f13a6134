-- :checkhealth holodeck — the server found (and its version), the trust state of the current
-- folder, and which files of it are recognised as agents.
local config = require("holodeck.config")
local lsp = require("holodeck.lsp")

local M = {}

-- vim.health.start/ok/… on 0.10+, vim.health.report_* on 0.8-0.9, require("health") on 0.7.
local health = vim.health or require("health")
local function report(name)
  return health[name] or health["report_" .. name]
end
local start, ok, warn, info = report("start"), report("ok"), report("warn"), report("info")

-- The agent files of `folder` as the server recognises them by name (agent.yaml,
-- *.agent.yaml; YAML files with test_cases: next to model: are recognised by content too).
local function agent_files(folder)
  local found = {}
  for _, pattern in ipairs({ "agent.yaml", "*.agent.yaml" }) do
    for _, path in ipairs(vim.fn.glob(folder .. "/" .. pattern, false, true)) do
      table.insert(found, vim.fn.fnamemodify(path, ":t"))
    end
  end
  return found
end

-- The buffer :checkhealth was called from (it opens its own buffer first).
local function checked_buffer()
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype == "" and vim.api.nvim_buf_get_name(bufnr) ~= "" then
    return bufnr
  end
  local alternate = vim.fn.bufnr("#")
  if alternate > 0 and vim.api.nvim_buf_is_valid(alternate) and vim.bo[alternate].buftype == "" then
    return alternate
  end
  return require("holodeck.results").last_attached() or bufnr
end

function M.check()
  start("holodeck-lsp server")
  local exe = config.executable()
  if exe == nil then
    warn(config.missing_message())
  else
    local version = vim.fn.systemlist({ exe, "--version" })
    if vim.v.shell_error == 0 and version[1] then
      ok(("%s, version %s"):format(exe, version[1]))
    else
      warn(("%s --version failed: %s"):format(exe, table.concat(version, " ")))
    end
  end

  start("holodeck: this folder")
  local bufnr = checked_buffer()
  local path = vim.api.nvim_buf_get_name(bufnr)
  local folder = path ~= "" and config.root_of(path) or vim.fn.getcwd()
  if config.is_trusted(folder) then
    ok(("trusted: %s (runs and grader imports allowed)"):format(folder))
  else
    info(("untrusted: %s (graders resolved statically, runs refused; add it to "
      .. "setup{ trusted = {...} } to run its suites)"):format(folder))
  end
  if config.options.cassette then
    info("runs replay the cassette " .. config.options.cassette)
  end
  local agents = agent_files(folder)
  if #agents == 0 then
    info("no agent.yaml or *.agent.yaml in " .. folder)
  else
    ok("agent files: " .. table.concat(agents, ", "))
  end
  local client = lsp.client(bufnr)
  if client then
    ok(("attached to this buffer (client %d, %s)"):format(client.id, client.name))
  elseif path ~= "" then
    info("not attached to this buffer (" .. vim.fn.fnamemodify(path, ":t") .. ")")
  end
end

return M
