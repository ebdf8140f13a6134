-- Test driver for :checkhealth holodeck, run after the config: waits for the client to
-- attach and for the first diagnostics, runs the health check as a user types it and writes
-- the report's lines to JSON. $HOLODECK_NVIM_SPEC: a JSON file {"out": path}.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/nvim_probe_common.lua")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.HOLODECK_NVIM_SPEC), "\n"))
local bufnr = vim.api.nvim_get_current_buf()
local result = { clients = 0, health = {}, errors = {} }

local function fail(message)
  table.insert(result.errors, message)
end

repeat
  if not common.attached(bufnr, result, fail) then
    break
  end
  if not vim.wait(30000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 20) then
    fail("no diagnostics within 30 s")
    break
  end
  local ok, err = pcall(vim.cmd, "checkhealth holodeck")
  if not ok then
    fail(":checkhealth holodeck raised: " .. tostring(err))
    break
  end
  result.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
until true

common.finish(result, spec.out)
