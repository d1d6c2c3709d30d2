"""Tools (layer 5): tiered registry, workspace sandbox, shell rules, built-in tools, executor.

Import the submodules directly (`agentcli.tools.registry`, `.sandbox`, `.executor`,
`.shell_rules`); this package imports nothing so the CLI start-up stays light.
"""
