// Preloaded into a Node MCP server (node -r ./mcp_loopback.cjs ...): a listen() that names only a
// port binds 127.0.0.1 instead of every interface, so a test server is never reachable from outside.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || /^\d+$/.test(String(args[0]))) && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
