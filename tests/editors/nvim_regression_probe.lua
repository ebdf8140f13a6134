-- Test driver for the regression marks, run after the config: waits for the server's first
-- diagnostics, asks Neovim's own code lens support for the lenses (vim.lsp.codelens.refresh)
-- and reads back what it stores (vim.lsp.codelens.get) and what it draws (the virtual text in
-- its namespace for the client), then opens the hover (vim.lsp.buf.hover) at each spec.hover
-- position and reads the floating window's lines. Writes JSON, quits.
-- $HOLODECK_NVIM_SPEC: a JSON file {"out": path, "hover": [[line, character], ...]} (0-based).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = {
  version = ("%d.%d"):format(vim.version().major, vim.version().minor),
  clients = 0,
  lenses = {}, -- vim.lsp.codelens.get: { line, title }
  drawn = {}, -- the lenses' virtual text: { line, text }
  hovers = {}, -- per spec.hover: the float's lines joined, or vim.NIL
  messages = "",
  errors = {},
}

local function fail(message)
  table.insert(result.errors, message)
end

local published = false
common.on_publish(uri, function()
  published = true
end)

local function drawn(client_id)
  local marks = {}
  local namespace = vim.lsp.codelens.__namespaces[client_id]
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, namespace, 0, -1, { details = true })) do
    local text = {}
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
    table.insert(marks, { line = mark[2], text = table.concat(text) })
  end
  return marks
end

local function floats()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      table.insert(found, win)
    end
  end
  return found
end

repeat -- one pass; `break` on a failure skips to writing the result
  if not common.ready(bufnr, result, fail, function()
    return published
  end) then
    break
  end
  local client = common.clients(bufnr)[1]

  if vim.fn.has("nvim-0.10") == 1 then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  else
    vim.lsp.codelens.refresh() -- the current buffer
  end
  if not vim.wait(15000, function()
    return #vim.lsp.codelens.get(bufnr) > 0 and #drawn(client.id) > 0
  end, 20) then
    fail("no code lenses stored and drawn within 15 s")
    break
  end
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(result.lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title or vim.NIL,
    })
  end
  result.drawn = drawn(client.id)

  for i, at in ipairs(spec.hover) do
    for _, win in ipairs(floats()) do
      vim.api.nvim_win_close(win, true)
    end
    vim.api.nvim_win_set_cursor(0, { at[1] + 1, at[2] })
    vim.lsp.buf.hover()
    if vim.wait(10000, function()
      return #floats() > 0
    end, 20) then
      local float = floats()[1]
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)
      result.hovers[i] = table.concat(lines, "\n")
    else
      result.hovers[i] = vim.NIL -- no hover here (0.7 says "No information available")
    end
  end
until true

result.messages = vim.api.nvim_exec("messages", true)
common.finish(result, spec.out)
