"""Built-in tools, one module each; `agentcli.tools.registry.BUILTINS` is the table of them."""
