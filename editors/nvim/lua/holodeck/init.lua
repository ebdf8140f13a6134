-- holodeck-lsp for Neovim: require("holodeck").setup({...}) starts the server for agent files;
-- run(kind), cancel(), compare(), report() and conversation(beside) are what :HoloDeckRun,
-- :HoloDeckCancel, :HoloDeckCompare, :HoloDeckReport and :HoloDeckConversation call. See
-- :help holodeck.
local config = require("holodeck.config")
local lsp = require("holodeck.lsp")
local results = require("holodeck.results")

local M = {}

local COMMANDS = { turn = "holodeck.runTurn", case = "holodeck.runCase", all = "holodeck.runAll" }

function M.setup(opts)
  config.set(opts)
  if config.executable() == nil then -- say how to fix it, instead of starting nothing
    vim.notify(config.missing_message(), vim.log.levels.WARN)
    return
  end
  lsp.start()
end

local function attached_client(bufnr, what)
  local client = lsp.client(bufnr)
  if client == nil then
    vim.notify(what .. ": holodeck-lsp is not attached to this buffer", vim.log.levels.WARN)
  end
  return client
end

-- The lens to execute for `command` at the cursor line: the nearest at or above it (a turn's
-- only if it belongs to the cursor's case). The server knows where cases and turns are; the
-- lens carries the command and its [uri, caseIndex, turnIndex] arguments.
local function lens_at(lenses, command, cursor)
  local nearest = {}
  for _, lens in ipairs(lenses or {}) do
    local line, name = lens.range.start.line, lens.command and lens.command.command
    local seen = name and nearest[name]
    if name and line <= cursor and (seen == nil or line >= seen.range.start.line) then
      nearest[name] = lens
    end
  end
  if command == COMMANDS.all then -- one per file, wherever the cursor is
    for _, lens in ipairs(lenses or {}) do
      if lens.command and lens.command.command == command then
        return lens
      end
    end
  end
  local lens, case = nearest[command], nearest[COMMANDS.case]
  if command == COMMANDS.turn and lens and case and lens.range.start.line < case.range.start.line then
    return nil -- that turn belongs to the case before the cursor's
  end
  return lens
end

local function summary(kind, err, result)
  if err then
    return kind .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR
  end
  local s = result and result.summary
  if s then
    -- Cases a cancelled run never ran are counted apart from the failed ones (`not_run`).
    local not_run = s.not_run or 0
    local text = ("%s: %s: %d passed, %d failed"):format(kind, result.status, s.passed, s.failed)
    if not_run > 0 then
      text = text .. (", %d not run"):format(not_run)
    end
    return text, (s.failed > 0 or not_run > 0) and vim.log.levels.WARN or vim.log.levels.INFO
  end
  return ("%s: %s: %s"):format(kind, result and result.status or "?", result and result.reason or ""),
    vim.log.levels.WARN
end

-- Run the turn ("turn"), the case ("case") under the cursor, or every case ("all"); when it
-- ends, say its summary, show the results and put the failures into the quickfix list.
-- `done(result)` (optional) is called with the command's answer.
function M.run(kind, done)
  local command = COMMANDS[kind]
  local name = "HoloDeckRun " .. tostring(kind)
  if command == nil then
    return vim.notify("HoloDeckRun: say turn, case or all (got " .. tostring(kind) .. ")", vim.log.levels.ERROR)
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr, name)
  if client == nil then
    return
  end
  local cursor = vim.api.nvim_win_get_cursor(0)[1] - 1
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  lsp.request(client, "textDocument/codeLens", params, function(err, lenses)
    for _, refused in ipairs(lenses or {}) do
      if refused.command and refused.command.command == "holodeck.whyNoRun" then
        -- The file cannot run (untrusted, or it has errors): its one lens says why.
        return vim.notify(name .. ": " .. refused.command.title, vim.log.levels.WARN)
      end
    end
    local lens = not err and lens_at(lenses, command, cursor) or nil
    if lens == nil then
      return vim.notify(name .. ": no " .. kind .. " at the cursor", vim.log.levels.WARN)
    end
    local execute = { command = lens.command.command, arguments = lens.command.arguments }
    lsp.request(client, "workspace/executeCommand", execute, function(run_err, result)
      local text, level = summary(name, run_err, result)
      results.show_hints(bufnr)
      vim.schedule(function() -- after the diagnostics published before the answer
        local failures = results.fill_quickfix(bufnr)
        local s = result and result.summary
        if failures > 0 and s and s.failed > 0 then
          text = text .. (" (%d in the quickfix list)"):format(failures)
        end
        vim.notify(text, level)
        if done then
          done(result)
        end
      end)
    end, bufnr)
  end, bufnr)
end

-- Stop the current buffer's run (the server's holodeck.cancelRun with its uri): says
-- "cancelling" or "nothing running"; the run itself then ends as :HoloDeckRun says, with the
-- turns it did not run skipped as cancelled. `done(result)` (optional) is called with the
-- command's answer ({ status = "cancelling" | "idle" }, nil on an error).
function M.cancel(done)
  local name = "HoloDeckCancel"
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr, name)
  if client == nil then
    return
  end
  local params = { command = "holodeck.cancelRun", arguments = { vim.uri_from_bufnr(bufnr) } }
  lsp.request(client, "workspace/executeCommand", params, function(err, result)
    local status = not err and result and result.status or nil
    if err then
      vim.notify(name .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif status == "cancelling" then
      vim.notify(name .. ": cancelling", vim.log.levels.INFO)
    elseif status == "idle" then
      vim.notify(name .. ": nothing running", vim.log.levels.INFO)
    else
      local why = result and (result.reason or result.status) or "no answer"
      vim.notify(name .. ": " .. tostring(why), vim.log.levels.WARN)
    end
    if done then
      done(not err and result or nil)
    end
  end, bufnr)
end

-- A scratch Markdown buffer in a new window at the bottom.
local function show_markdown(markdown)
  vim.cmd("botright new")
  local out = vim.api.nvim_get_current_buf()
  vim.bo[out].buftype = "nofile"
  vim.bo[out].bufhidden = "wipe"
  vim.bo[out].filetype = "markdown"
  vim.api.nvim_buf_set_lines(out, 0, -1, false, vim.split(markdown, "\n"))
  vim.bo[out].modified = false
  return out
end

local function markdown_command(what, command)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr, what)
  if client == nil then
    return
  end
  local params = { command = command, arguments = { vim.uri_from_bufnr(bufnr) } }
  lsp.request(client, "workspace/executeCommand", params, function(err, result)
    if err or result == nil or result.status ~= "done" then
      local why = err and (err.message or vim.inspect(err)) or (result and result.reason) or "no answer"
      return vim.notify(what .. ": " .. why, vim.log.levels.WARN)
    end
    show_markdown(result.markdown)
  end, bufnr)
end

-- This file's results (or latest stored run) against the baseline run, in the tables
-- `holodeck-lsp compare --format markdown` prints; nothing to compare: a warning saying why.
function M.compare()
  markdown_command("HoloDeckCompare", "holodeck.compareWithBaseline")
end

-- The file's last run in this session, as the Markdown report `holodeck-lsp run --report-md`
-- writes.
function M.report()
  markdown_command("HoloDeckReport", "holodeck.lastRunReport")
end

-- The case under the cursor in the file's last run as its conversation (holodeck.conversation
-- module), optionally beside the baseline run or another model.
M.conversation = require("holodeck.conversation").open

M.client = lsp.client

-- The run results as shown in the buffer, on any version: { { line, text } } (0-based lines).
M.shown = results.shown

return M
