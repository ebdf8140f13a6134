-- :checkhealth holodeck — the server found (and its version), the trust state of the current
-- folder, and which files directly in it the server takes for agents: by the agentGlobs the
-- plugin sends, and by content.
local config = require("holodeck.config")
local lsp = require("holodeck.lsp")

local M = {}

-- vim.health.start/ok/… on 0.10+, vim.health.report_* on 0.8-0.9, require("health") on 0.7.
local health = vim.health or require("health")
local function report(name)
  return health[name] or health["report_" .. name]
end
local start, ok, warn, info = report("start"), report("ok"), report("warn"), report("info")

-- The server's default agentGlobs (docs/editors/README.md, "Settings").
M.DEFAULT_GLOBS = { "agent.yaml", "*.agent.yaml" }

-- The agentGlobs the plugin sends (setup{ settings = { agentGlobs = {...} } }, or its
-- snake_case spelling), else the server's defaults.
function M.globs()
  local settings = config.settings()
  local globs = settings.agentGlobs or settings.agent_globs
  if type(globs) == "table" and #globs > 0 then
    return globs
  end
  return M.DEFAULT_GLOBS
end

-- Whether `path` matches `glob` as the server matches it (Python's PurePath.match): the glob's
-- parts against the path's last parts, each part a shell pattern (`*` never crosses a `/`).
local function matches(path, glob)
  local parts, names = vim.split(glob, "/", { plain = true }), vim.split(path, "/", { plain = true })
  if #parts > #names then
    return false
  end
  for i = 1, #parts do
    local name = names[#names - #parts + i]
    if vim.fn.match(name, vim.fn.glob2regpat(parts[i]) .. "\\C") < 0 then -- (anchored by glob2regpat)
      return false
    end
  end
  return true
end

-- What the server also takes for an agent: a .yaml / .yml file whose top level has
-- test_cases: next to model:, instructions: or name:.
local function looks_like_agent(path)
  if not (path:match("%.ya?ml$")) then
    return false
  end
  local ok, lines = pcall(vim.fn.readfile, path)
  if not ok then
    return false
  end
  local cases, agent = false, false
  for _, line in ipairs(lines) do
    cases = cases or line:match("^test_cases%s*:") ~= nil
    agent = agent or line:match("^model%s*:") ~= nil or line:match("^instructions%s*:") ~= nil
      or line:match("^name%s*:") ~= nil
  end
  return cases and agent
end

-- The files directly in `folder` that the server takes for agents: those matching `globs`
-- (by name), and the other YAML files recognised by their content. Two lists of names.
function M.agent_files(folder, globs)
  local by_name, by_content = {}, {}
  for _, path in ipairs(vim.fn.glob(folder .. "/*", false, true)) do
    if vim.fn.isdirectory(path) == 0 then
      local name = vim.fn.fnamemodify(path, ":t")
      local named = false
      for _, glob in ipairs(globs) do
        named = named or matches(path, glob)
      end
      if named then
        table.insert(by_name, name)
      elseif looks_like_agent(path) then
        table.insert(by_content, name)
      end
    end
  end
  return by_name, by_content
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
  local globs = M.globs()
  local named, recognised = M.agent_files(folder, globs)
  local rule = "agentGlobs " .. table.concat(globs, ", ")
  if #named == 0 then
    info(("no file matching %s in %s"):format(rule, folder))
  else
    ok(("agent files (%s): %s"):format(rule, table.concat(named, ", ")))
  end
  if #recognised > 0 then
    ok("agent files by content (top-level test_cases: next to model:, instructions: or name:): "
      .. table.concat(recognised, ", "))
  end
  local client = lsp.client(bufnr)
  if client then
    ok(("attached to this buffer (client %d, %s)"):format(client.id, client.name))
  elseif path ~= "" then
    info("not attached to this buffer (" .. vim.fn.fnamemodify(path, ":t") .. ")")
  end
end

return M
