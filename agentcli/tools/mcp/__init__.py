"""MCP servers as tool sources: each server's tools become registry Tools named SERVER_TOOL.

    adapt        MCP tool listing -> our Tool spec (name, tier, schema); MCP results -> text
    connection   one server over stdio or streamable HTTP: lazy start, calls, restart once
    manager      every server of a session: start in parallel, register tools, stop together

Import the submodules directly; importing this package loads nothing (the `mcp` SDK is
imported only when a server starts).
"""
