// One MCP session with the official TypeScript SDK against `webgate mcp`.
//
// Run by cli/tests/mcp.rs (`an_official_typescript_client_session` and its
// Streamable HTTP twin) with node, from the SDK installed under
// target/mcp-node by `cargo xtask ci` (pinned by package-lock.json here).
// argv[2] is JSON: the server's command line (stdio: the SDK starts it)
// or the URL and bearer token of a `webgate mcp --http` the test started.
// Every check throws on failure; the last line printed is a JSON summary
// the Rust test reads.
//
// What it checks, with a client this project did not write: the
// handshake, the tools' titles and annotations, results whose
// structuredContent the SDK itself validates against each tool's
// outputSchema (callTool does, once listTools has been read), progress
// during a fetch, a soft failure as a result, a hard failure as isError
// without structured content, and a search.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const spec = JSON.parse(process.argv[2]);

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const transport = spec.url
  ? new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: { Authorization: `Bearer ${spec.token}` } },
    })
  : new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, stderr: "ignore" });

const client = new Client({ name: "webgate-test", version: "1.0.0" });
await client.connect(transport);
const summary = {};
try {
  check(client.getServerVersion()?.name === "webgate", "server name");
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check(JSON.stringify(Object.keys(byName).sort()) === '["web_fetch","web_search"]', `tools ${Object.keys(byName)}`);
  for (const t of tools) {
    check(t.title, `${t.name} has a title`);
    check(t.annotations?.readOnlyHint === true, `${t.name} readOnlyHint`);
    check(t.annotations?.openWorldHint === true, `${t.name} openWorldHint`);
    check(t.outputSchema?.type === "object", `${t.name} outputSchema`);
  }

  const progress = [];
  const ok = await client.callTool({ name: "web_fetch", arguments: { url: spec.page } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  check(!ok.isError, `fetch ok: ${textOf(ok)}`);
  check(ok.structuredContent?.outcome === "ok" && ok.structuredContent?.id === "fetch.ok", "fetch structured");
  check(ok.structuredContent.untrusted?.resolved_url === spec.page, "resolved_url");
  check(textOf(ok).includes(spec.page_text), "the page text is in the text content");
  check(textOf(ok).includes("<<<quoted "), "the text content is enveloped");
  // Over stdio this SDK handles a notification a microtask later than a
  // response that came in the same read, so the reports written just
  // before the result (in order: the server sends them first) may be
  // dropped as "unknown token" when the whole call takes a millisecond;
  // over Streamable HTTP each arrives on its own. The count is checked
  // where the SDK can see them all.
  if (spec.url) check(progress.length >= 5, `progress events: ${JSON.stringify(progress)}`);
  check(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), "progress rises");
  summary.fetch_progress_events = progress.length;

  const soft = await client.callTool({ name: "web_fetch", arguments: { url: "http://" + spec.page.slice(8) } });
  check(!soft.isError, "a soft failure is not isError");
  check(soft.structuredContent?.outcome === "soft" && soft.structuredContent?.id === "fetch.url.scheme", "soft structured");

  const hard = await client.callTool({ name: "web_fetch", arguments: { url: "https://127.0.0.1/" } });
  check(hard.isError === true, "a hard failure is isError");
  check(hard.structuredContent === undefined, "no structured content on a hard failure");

  const found = await client.callTool({ name: "web_search", arguments: { query: "rust" } });
  check(!found.isError, `search ok: ${textOf(found)}`);
  check(found.structuredContent?.untrusted?.results?.length === 1, "search structured");
  summary.search_rows = found.structuredContent.untrusted.results.length;
  summary.validated = 3;
} finally {
  await client.close();
}
console.log(JSON.stringify(summary));
