-- The plugin's options: defaults, setup()'s overrides, and what the server is sent from them.
-- Pure functions of the options and the file system (no client, no buffer): read by the
-- start-up code (holodeck.lsp), lsp/holodeck_lsp.lua and :checkhealth holodeck alike.
local M = {}

M.defaults = {
  -- The server command: a string or a list; nil is $HOLODECK_LSP_CMD, else holodeck-lsp.
  cmd = nil,
  -- Folders whose suites may be run (they and everything below them). Default: none —
  -- untrusted, grader modules are never imported and runs are refused.
  trusted = {},
  -- cassettePath: runs replay this cassette (relative to the agent's folder, or absolute).
  cassette = nil,
  -- debounceMs: delay after the last change before a check.
  debounce_ms = 50,
  -- Any other holodeck setting (docs/editors/README.md), e.g. { baseline = "v1" }.
  settings = {},
  -- Run results at the end of each run turn's input: line (Neovim's inlay hints on 0.10+,
  -- virtual text before).
  inlay_hints = true,
  -- After a run, put its failures into the quickfix list.
  quickfix = true,
  -- Which buffers get the client (the server ignores YAML files that are not agents).
  filetypes = { "yaml" },
}

M.options = vim.deepcopy(M.defaults)

function M.set(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  if type(M.options.trusted) == "string" then
    M.options.trusted = { M.options.trusted }
  end
  return M.options
end

-- The server command as a list.
function M.cmd()
  local cmd = M.options.cmd or vim.env.HOLODECK_LSP_CMD or "holodeck-lsp"
  if type(cmd) == "string" then
    return { cmd }
  end
  return cmd
end

-- The command's executable, resolved on $PATH; nil when it is not found.
function M.executable()
  local exe = M.cmd()[1]
  if vim.fn.executable(exe) == 0 then
    return nil
  end
  return vim.fn.exepath(exe) ~= "" and vim.fn.exepath(exe) or exe
end

-- What to tell the user when the server cannot be started: the cause and the fix.
function M.missing_message()
  return ("holodeck-lsp: %s not found. Install it (in a holodeck-lsp checkout: pipx install .) "
    .. "or set $HOLODECK_LSP_CMD (or setup{ cmd = ... }) to its full path, then restart Neovim.")
    :format(M.cmd()[1])
end

local function normalise(dir)
  return (vim.fn.resolve(vim.fn.fnamemodify(vim.fn.expand(dir), ":p")):gsub("/$", ""))
end

-- The folder a file's client serves: the file's own folder (one server per agent folder).
function M.root_of(path)
  return normalise(vim.fn.fnamemodify(path, ":p:h"))
end

-- Whether `root` is one of the trusted folders or below one.
function M.is_trusted(root)
  root = normalise(root)
  for _, dir in ipairs(M.options.trusted or {}) do
    dir = normalise(dir)
    if root == dir or root:sub(1, #dir + 1) == dir .. "/" then
      return true
    end
  end
  return false
end

-- The `holodeck` settings section.
function M.settings()
  return vim.tbl_extend("force", {
    debounceMs = M.options.debounce_ms,
    cassettePath = M.options.cassette,
  }, M.options.settings or {})
end

-- initializationOptions: trust (only settable here, never from workspace settings) and a copy
-- of the settings, which the server reads from clients that do not announce
-- workspace/configuration (Neovim 0.7).
function M.init_options(root)
  return vim.tbl_extend("force", { trusted = M.is_trusted(root) }, M.settings())
end

return M
