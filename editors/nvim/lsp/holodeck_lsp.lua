-- Neovim 0.11+: `vim.lsp.enable("holodeck_lsp")` finds this config on the runtimepath. It
-- reads the options of require("holodeck").setup({...}) (defaults: untrusted, no cassette)
-- when a client starts; setup() itself also enables it.
return require("holodeck.lsp").config()
