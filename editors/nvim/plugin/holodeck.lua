-- The user commands, defined as soon as the plugin is on the runtimepath; the server starts
-- with require("holodeck").setup({...}) (or, on 0.11+, vim.lsp.enable("holodeck_lsp")).
if vim.g.loaded_holodeck then
  return
end
vim.g.loaded_holodeck = true

vim.api.nvim_create_user_command("HoloDeckRun", function(opts)
  require("holodeck").run(opts.args ~= "" and opts.args or "turn")
end, {
  nargs = "?",
  complete = function() return { "turn", "case", "all" } end,
  desc = "HoloDeck: run the turn / case under the cursor, or the whole file",
})
vim.api.nvim_create_user_command("HoloDeckCancel", function()
  require("holodeck").cancel()
end, { desc = "HoloDeck: stop the run of this file" })
vim.api.nvim_create_user_command("HoloDeckCompare", function()
  require("holodeck").compare()
end, { desc = "HoloDeck: this file's results against the baseline run" })
vim.api.nvim_create_user_command("HoloDeckReport", function()
  require("holodeck").report()
end, { desc = "HoloDeck: the file's last run as Markdown" })
vim.api.nvim_create_user_command("HoloDeckConversation", function(opts)
  require("holodeck").conversation(opts.args ~= "" and opts.args or nil)
end, {
  nargs = "?",
  complete = function() return { "baseline" } end,
  desc = "HoloDeck: the case under the cursor in the last run, as its conversation",
})
