// Drives `strata mcp` with the official TypeScript MCP SDK client, over stdio and over
// streamable HTTP: lists the tools, saves, searches, reads and forgets a memory, checks that
// HTTP refuses a missing token, then measures memory_search latency over stdio on a large
// store. Any failed check exits 1.
//
//   node client.mjs --bin ./strata --project DIR [--store DIR] [--calls 1000]
//
// The environment (STRATA_HOME …) is passed on to the server. --store is a directory written
// by `strata bench mcp --write-store DIR`: DIR/memory is served for the latency run and
// DIR/queries.json holds the queries.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { values: opts } = parseArgs({
  options: {
    bin: { type: "string" },
    project: { type: "string" },
    store: { type: "string" },
    calls: { type: "string", default: "1000" },
  },
});
if (!opts.bin || !opts.project) {
  console.error("usage: node client.mjs --bin STRATA --project DIR [--store MEMDIR] [--calls N]");
  process.exit(2);
}

let failures = 0;
function check(ok, what) {
  if (ok) {
    console.log(`ok   ${what}`);
  } else {
    failures++;
    console.log(`FAIL ${what}`);
  }
}

const wantTools = ["instructions", "memory_forget", "memory_get", "memory_list", "memory_save", "memory_search", "session_search"];

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) {
    const text = (res.content ?? []).map((c) => c.text ?? "").join("");
    throw new Error(`${name}: ${text}`);
  }
  return res.structuredContent;
}

// exercise runs the functional checks on a connected client; label names the transport.
async function exercise(client, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(wantTools), `${label}: tools/list gives ${names.join(", ")}`);
  check(tools.every((t) => t.description && t.inputSchema && t.outputSchema), `${label}: every tool has a description and input and output schemas`);

  const name = `ts client ${label} 部署`;
  const saved = await call(client, "memory_save", {
    name,
    type: "project",
    description: `deployments go through the staging cluster first (${label})`,
    body: "Deploy to staging, run the smoke tests, then promote.\n\n**Why:** prod broke twice.\n\n**How to apply:** every release.\n",
  });
  check(saved.created === true && typeof saved.file === "string" && saved.file.endsWith(".md"), `${label}: memory_save created ${saved.file}`);

  const found = await call(client, "memory_search", { query: "staging cluster deployments smoke tests", k: 3 });
  const top = found.results[0];
  check(top && top.memory.name === name && top.content.includes("smoke tests"), `${label}: memory_search finds it first`);

  const got = await call(client, "memory_get", { name });
  check(got.body.includes("promote"), `${label}: memory_get returns the body`);

  const index = await client.readResource({ uri: "strata://memory/MEMORY.md" });
  check(index.contents[0].text.includes(saved.file), `${label}: the MEMORY.md resource lists the file`);

  const bad = await client.callTool({ name: "memory_save", arguments: { name: "../escape", type: "project", description: "d", body: "b" } });
  check(bad.isError === true, `${label}: a bad name is an error, not a crash`);

  const forgot = await call(client, "memory_forget", { name, archive: false });
  check(forgot.file === saved.file && forgot.index_lines === 1, `${label}: memory_forget removed ${forgot.file}`);

  const after = await call(client, "memory_search", { query: "staging cluster deployments smoke tests" });
  check(!after.results.some((r) => r.memory.name === name), `${label}: memory_search no longer finds it`);
}

function stdioTransport(env = {}) {
  return new StdioClientTransport({
    command: opts.bin,
    args: ["mcp", "--project", opts.project],
    env: { ...process.env, ...env },
    stderr: "inherit",
  });
}

async function overStdio() {
  const client = new Client({ name: "strata-ts-client", version: "1.0.0" });
  await client.connect(stdioTransport());
  try {
    await exercise(client, "stdio");
  } finally {
    await client.close();
  }
}

// startHTTP runs `strata mcp --http` on a free loopback port and resolves with its URL once
// the server says where it listens.
function startHTTP(token) {
  const proc = spawn(opts.bin, ["mcp", "--project", opts.project, "--http", "127.0.0.1:0", "--token", token], {
    env: process.env,
    stdio: ["ignore", "inherit", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("strata mcp --http did not start in 30 s")), 30000);
    proc.stderr.on("data", (d) => {
      buf += d.toString();
      const m = buf.match(/serving (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    });
    proc.on("exit", (code) => reject(new Error(`strata mcp --http exited with ${code}: ${buf}`)));
  });
}

async function overHTTP() {
  const token = "ts-client-" + Math.random().toString(36).slice(2);
  const { proc, url } = await startHTTP(token);
  try {
    const noAuth = new Client({ name: "no-token", version: "1.0.0" });
    let refused = false;
    try {
      await noAuth.connect(new StreamableHTTPClientTransport(new URL(url)));
      await noAuth.close();
    } catch {
      refused = true;
    }
    check(refused, "http: a client without the token is refused");

    const client = new Client({ name: "strata-ts-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }));
    try {
      await exercise(client, "http");
    } finally {
      await client.close();
    }
  } finally {
    proc.kill("SIGTERM");
  }
}

async function latency() {
  if (!opts.store) {
    return;
  }
  const client = new Client({ name: "strata-ts-latency", version: "1.0.0" });
  const queries = JSON.parse(readFileSync(join(opts.store, "queries.json"), "utf8"));
  await client.connect(stdioTransport({ STRATA_MEMORY_DIR: join(opts.store, "memory") }));
  try {
    const first = await call(client, "memory_search", { query: queries[0] });
    console.log(`store: ${first.searched} memories`);
    for (let i = 0; i < 50; i++) {
      await call(client, "memory_search", { query: queries[i % queries.length] });
    }
    const n = Number(opts.calls);
    const times = [];
    let hits = 0;
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      const res = await call(client, "memory_search", { query: queries[i % queries.length], k: 5 });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      hits += res.results.length;
    }
    times.sort((a, b) => a - b);
    const p = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
    check(hits > 0, `latency: searches found memories (${hits} results over ${n} calls)`);
    console.log(`memory_search over stdio, ${first.searched} memories, ${n} calls: p50 ${p(0.5).toFixed(2)} ms, p90 ${p(0.9).toFixed(2)} ms, p99 ${p(0.99).toFixed(2)} ms (target p50 < 5 ms)`);
  } finally {
    await client.close();
  }
}

try {
  await overStdio();
  await overHTTP();
  await latency();
} catch (err) {
  failures++;
  console.log(`FAIL ${err.stack ?? err}`);
}
console.log(failures === 0 ? "tsclient: all checks passed" : `tsclient: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
