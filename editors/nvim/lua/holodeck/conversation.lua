-- :HoloDeckConversation [beside]: the case under the cursor in the file's last run, as its
-- conversation (the server's holodeck.conversation: per turn the user's input, tool calls with
-- their results, the agent's answer, the verdict and why), in a read-only Markdown buffer
-- named holodeck://conversation/<case>. `beside` ("baseline", or another model of the run)
-- shows that side under each turn, the turns that differ marked "≠ differs".
local lsp = require("holodeck.lsp")

local M = {}

local NAME = "HoloDeckConversation"
local RUN_CASE = "holodeck.runCase"

-- The case index of the nearest Run case lens at or above the cursor line (the server knows
-- where cases are; the lens carries [uri, caseIndex]); nil and a reason when there is none.
local function case_at(lenses, cursor)
  local nearest
  for _, lens in ipairs(lenses or {}) do
    local command = lens.command
    if command and command.command == "holodeck.whyNoRun" then
      return nil, command.title -- the file cannot run now (errors, untrusted): it says why
    end
    local line = lens.range.start.line
    if command and command.command == RUN_CASE and line <= cursor then
      if nearest == nil or line >= nearest.range.start.line then
        nearest = lens
      end
    end
  end
  if nearest == nil then
    return nil, "no case at the cursor"
  end
  return nearest.command.arguments[2], nil
end

-- The buffer named `title` (exact match, unlike bufnr(), which takes a pattern), or nil.
local function buffer_named(title)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == title then
      return buf
    end
  end
  return nil
end

-- A scratch Markdown buffer below, named `title` (an earlier one of that name replaced),
-- read-only: the text is what the run said, not something to edit.
function M.show(title, markdown)
  local old = buffer_named(title)
  if old ~= nil then
    vim.api.nvim_buf_delete(old, { force = true })
  end
  vim.cmd("botright new")
  local out = vim.api.nvim_get_current_buf()
  vim.bo[out].buftype = "nofile"
  vim.bo[out].bufhidden = "wipe"
  vim.bo[out].swapfile = false
  vim.api.nvim_buf_set_name(out, title)
  vim.bo[out].filetype = "markdown"
  vim.api.nvim_buf_set_lines(out, 0, -1, false, vim.split(markdown, "\n"))
  vim.bo[out].modifiable = false
  vim.bo[out].modified = false
  return out
end

-- Open the conversation of the case under the cursor; `beside` (optional): "baseline" or a
-- model. `done(bufnr)` (optional) is called with the buffer opened, or nil when nothing was.
function M.open(beside, done)
  local finish = done or function() end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = lsp.client(bufnr)
  if client == nil then
    vim.notify(NAME .. ": holodeck-lsp is not attached to this buffer", vim.log.levels.WARN)
    return finish(nil)
  end
  local uri = vim.uri_from_bufnr(bufnr)
  local cursor = vim.api.nvim_win_get_cursor(0)[1] - 1
  lsp.request(client, "textDocument/codeLens", { textDocument = { uri = uri } }, function(err, lenses)
    local case, why = case_at(not err and lenses or {}, cursor)
    if case == nil then
      vim.notify(NAME .. ": " .. (err and (err.message or vim.inspect(err)) or why), vim.log.levels.WARN)
      return finish(nil)
    end
    local options = { case = case, beside = (beside ~= nil and beside ~= "") and beside or nil }
    local params = { command = "holodeck.conversation", arguments = { uri, options } }
    lsp.request(client, "workspace/executeCommand", params, function(run_err, result)
      if run_err or result == nil or result.status ~= "done" then
        local reason = run_err and (run_err.message or vim.inspect(run_err))
          or (result and result.reason)
          or "no answer"
        vim.notify(NAME .. ": " .. reason, vim.log.levels.WARN)
        return finish(nil)
      end
      -- A case name is YAML text: no line break or control character in a buffer name.
      local case_name = tostring(result.case):gsub("%c", " ")
      finish(M.show("holodeck://conversation/" .. case_name, result.markdown))
    end, bufnr)
  end, bufnr)
end

return M
