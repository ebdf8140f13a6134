-- Starting holodeck-lsp and finding its client: vim.lsp.config + vim.lsp.enable on 0.11+
-- (the config is lsp/holodeck_lsp.lua, built by M.config below), vim.lsp.start_client +
-- buf_attach_client on 0.7-0.10. One client per agent folder (root_dir = the file's folder).
local config = require("holodeck.config")

local M = {}

M.name = "holodeck_lsp"
local NAMES = { holodeck_lsp = true, ["holodeck-lsp"] = true } -- ours, and the old snippets'

local warned = false
local function warn_missing() -- once per session: the cause and the fix, not "spawn failed"
  if not warned then
    warned = true
    vim.notify(config.missing_message(), vim.log.levels.WARN)
  end
end

-- The buffer's holodeck-lsp client, or nil.
function M.client(bufnr)
  local clients
  if vim.lsp.get_clients then -- 0.10+
    clients = vim.lsp.get_clients({ bufnr = bufnr })
  else
    clients = vim.lsp.buf_get_clients(bufnr)
  end
  for _, client in pairs(clients) do
    if NAMES[client.name] then
      return client
    end
  end
  return nil
end

-- client:request on 0.11+ (the dot form is deprecated there), client.request before.
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function on_attach(client, bufnr)
  require("holodeck.results").attach(bufnr)
  if config.options.inlay_hints and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr }) -- run results at the end of lines
  end
end

-- The vim.lsp.config table for 0.11+ (returned by lsp/holodeck_lsp.lua). Options are read
-- when a client starts, so setup() may come before or after vim.lsp.enable.
function M.config()
  return {
    cmd = config.cmd(),
    filetypes = config.options.filetypes,
    root_dir = function(bufnr, on_dir)
      local path = vim.api.nvim_buf_get_name(bufnr)
      if path == "" then
        return
      end
      if config.executable() == nil then
        return warn_missing()
      end
      on_dir(config.root_of(path))
    end,
    -- Only listed folders are trusted: never import grader modules of a cloned repository.
    before_init = function(params, client_config)
      params.initializationOptions = config.init_options(client_config.root_dir)
      client_config.settings = { holodeck = config.settings() }
    end,
    settings = { holodeck = config.settings() }, -- answers workspace/configuration
    on_attach = on_attach,
  }
end

-- 0.7-0.10: one client per folder, attached to each agent / YAML buffer in it.
local clients = {} -- root folder -> client id

local function attach_old(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" then
    return
  end
  if config.executable() == nil then
    return warn_missing()
  end
  local root = config.root_of(path)
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = M.name,
      cmd = config.cmd(),
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = config.init_options(root),
      settings = { holodeck = config.settings() }, -- workspace/configuration (0.8+)
      on_attach = on_attach,
    })
    clients[root] = id
  end
  if id ~= nil and not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

local function wanted(bufnr)
  local filetype = vim.api.nvim_buf_get_option(bufnr, "filetype")
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t")
  return vim.tbl_contains(config.options.filetypes, filetype)
    or name == "agent.yaml" or name:match("%.agent%.yaml$") ~= nil
end

function M.start()
  if vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.config(M.name, M.config())
    vim.lsp.enable(M.name)
    return
  end
  local group = vim.api.nvim_create_augroup("holodeck_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.options.filetypes,
    callback = function(args) attach_old(args.buf) end,
  })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = { "agent.yaml", "*.agent.yaml" },
    callback = function(args) attach_old(args.buf) end,
  })
  -- A plugin manager may call setup() after the first agent file was opened.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and wanted(bufnr) then
      attach_old(bufnr)
    end
  end
end

return M
