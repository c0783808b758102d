"""One MCP session with the official Python SDK against `webgate mcp`.

Run by cli/tests/mcp.rs (`an_official_python_client_session`, and
`an_official_python_client_session_over_streamable_http`), which starts
the loopback page server and search gateway and passes, as JSON in
argv[1], either the server's command line (stdio: the SDK starts it) or
the URL and bearer token of a `webgate mcp --http` it started (the SDK's
Streamable HTTP client). Every check raises on failure; the last
line printed is a JSON summary the Rust test reads.

What it checks, with a client this project did not write: the handshake;
every input and output schema is a valid JSON Schema 2020-12; titles and
annotations; structuredContent of ok and soft results valid against the
tool's outputSchema (by jsonschema and by the SDK's own check); the text
content unchanged beside it; progress notifications during a fetch;
hard failures as isError without structured content.
"""

import asyncio
import contextlib
import json
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@contextlib.asynccontextmanager
async def connect(spec):
    if "url" in spec:
        headers = {"Authorization": "Bearer " + spec["token"]}
        async with create_mcp_http_client(headers=headers) as client:
            async with streamable_http_client(spec["url"], http_client=client) as (read, write):
                yield read, write
    else:
        params = StdioServerParameters(command=spec["command"], args=spec["args"], env=spec["env"])
        async with stdio_client(params) as (read, write):
            yield read, write


async def main():
    spec = json.loads(sys.argv[1])
    summary = {}
    async with connect(spec) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "webgate", "server name")
            listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            check(sorted(tools) == ["web_fetch", "web_search"], f"tools {sorted(tools)}")
            for t in tools.values():
                jsonschema.Draft202012Validator.check_schema(t.input_schema)
                jsonschema.Draft202012Validator.check_schema(t.output_schema)
                check(t.title, f"{t.name} has a title")
                check(t.annotations.read_only_hint is True, f"{t.name} readOnlyHint")
                check(t.annotations.open_world_hint is True, f"{t.name} openWorldHint")
                check(t.annotations.destructive_hint is False, f"{t.name} destructiveHint")

            def validated(name, result):
                check(result.structured_content is not None, f"{name}: structuredContent")
                jsonschema.validate(result.structured_content, tools[name].output_schema,
                                    cls=jsonschema.Draft202012Validator)
                return result.structured_content

            progress = []

            async def on_progress(p, total, message):
                progress.append((p, message))

            ok = await session.call_tool("web_fetch", {"url": spec["page"]},
                                         progress_callback=on_progress)
            check(not ok.is_error, f"fetch ok: {text_of(ok)}")
            s = validated("web_fetch", ok)
            check(s["outcome"] == "ok" and s["id"] == "fetch.ok", f"fetch structured {s}")
            check(s["untrusted"]["resolved_url"] == spec["page"], f"resolved_url {s}")
            check(spec["page_text"] in text_of(ok), "the page text is in the text content")
            check("<<<quoted " in text_of(ok), "the text content is enveloped")
            steps = [m for _, m in progress]
            for want in ("looking up", "connecting to", "requesting", "response head", "extracting"):
                check(any(m.startswith(want) for m in steps), f"progress '{want}' in {steps}")
            check([p for p, _ in progress] == sorted(p for p, _ in progress), "progress rises")
            summary["fetch_progress_events"] = len(progress)

            soft = await session.call_tool("web_fetch", {"url": "http://" + spec["page"][8:]})
            check(not soft.is_error, "a soft failure is not isError")
            s = validated("web_fetch", soft)
            check(s == {"outcome": "soft", "id": "fetch.url.scheme"}, f"soft structured {s}")

            hard = await session.call_tool("web_fetch", {"url": "https://127.0.0.1/"})
            check(hard.is_error, "a hard failure is isError")
            check(hard.structured_content is None, "no structured content on a hard failure")

            found = await session.call_tool("web_search", {"query": "rust"})
            check(not found.is_error, f"search ok: {text_of(found)}")
            s = validated("web_search", found)
            check(s["query"] == "rust" and len(s["untrusted"]["results"]) == 1, f"search structured {s}")
            summary["search_rows"] = len(s["untrusted"]["results"])
            summary["validated"] = 3
    print(json.dumps(summary))


asyncio.run(main())
