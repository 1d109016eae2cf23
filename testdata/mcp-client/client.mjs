// Connects the official MCP TypeScript SDK client to mnemo, lists the tools,
// calls workflow_memory_query (and, with --bench N, times N calls), checks
// that an unknown argument is rejected, and prints one JSON object.
//
//   node client.mjs --stdio /path/to/mnemo --db /path/to/db [--namespace NS] --task "..."
//   node client.mjs --http http://127.0.0.1:7077/mcp [--key KEY] [--namespace NS] --task "..."
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function args(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--")) throw new Error(`unexpected argument ${argv[i]}`);
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

function pct(sorted, p) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, i)] * 1000) / 1000;
}

const a = args(process.argv.slice(2));
let transport, kind;
if (a.stdio) {
  kind = "stdio";
  const cliArgs = ["--db", a.db];
  if (a.namespace) cliArgs.push("--namespace", a.namespace);
  cliArgs.push("mcp");
  transport = new StdioClientTransport({ command: a.stdio, args: cliArgs, env: { ...process.env }, stderr: "inherit" });
} else if (a.http) {
  kind = "http";
  const headers = {};
  if (a.key) headers["Authorization"] = `Bearer ${a.key}`;
  if (a.namespace) headers["Mnemo-Namespace"] = a.namespace;
  transport = new StreamableHTTPClientTransport(new URL(a.http), { requestInit: { headers } });
} else {
  throw new Error("want --stdio BIN --db PATH or --http URL");
}

const client = new Client({ name: "mnemo-test-client", version: "1.0.0" });
await client.connect(transport);
const out = { transport: kind, server: client.getServerVersion() };

const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, annotations: t.annotations, inputSchema: t.inputSchema }));

const task = a.task || "what do we know";
const res = await client.callTool({ name: "workflow_memory_query", arguments: { task_description: task, token_budget: 2000 } });
out.query = {
  isError: res.isError === true,
  text: res.content?.[0]?.text ?? "",
  structured: res.structuredContent ?? null,
};

const bad = await client.callTool({ name: "workflow_memory_query", arguments: { task_description: task, no_such_argument: 1 } });
out.unknownArgument = { isError: bad.isError === true, text: bad.content?.[0]?.text ?? "" };

const n = Number(a.bench || 0);
if (n > 0) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: "workflow_memory_query", arguments: { task_description: `${task} ${i % 10}` } });
    times.push(performance.now() - t0);
    if (r.isError) throw new Error(`call ${i} failed: ${r.content?.[0]?.text}`);
  }
  times.sort((x, y) => x - y);
  out.bench = { calls: n, p50_ms: pct(times, 50), p95_ms: pct(times, 95), p99_ms: pct(times, 99) };
}

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
